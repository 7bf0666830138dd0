import Foundation
import GRDB
import Testing
@testable import MeetCore

/// A fresh database file with a few users in it.
struct FriendsFixture {
    let database: AppDatabase
    let friends: FriendService
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("meetupd-friends-")
        database = try AppDatabase(path: folder.url.appendingPathComponent("meetupd.sqlite").path)
        friends = FriendService(database: database, now: Date.init)
    }

    /// Creates a user (with a confirmed address unless told otherwise) and returns their id.
    func user(_ name: String, confirmed: Bool = true) async throws -> String {
        let id = RandomToken.id()
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, createdAt)
                VALUES (?, ?, ?, 'en', '-', ?, ?)
                """, arguments: [id, "\(id)@example.org", name, confirmed ? Date() : nil, Date()])
        }
        return id
    }

    /// Lists the first `count` activities of the catalog on `user`'s profile.
    func likes(_ user: String, firstActivities count: Int) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO profileActivity (userId, activityId) SELECT ?, id FROM activity ORDER BY id LIMIT ?
                """, arguments: [user, count])
        }
    }
}

@Suite struct FriendServiceTests {
    @Test func requestAcceptedMakesBothFriends() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan) = (try await f.user("Anna"), try await f.user("Bohdan"))
        let request = try await f.friends.sendRequest(from: anna, to: bohdan)
        #expect(request.status == .pending)
        #expect(request.from == FriendUser(id: anna, displayName: "Anna"))
        #expect(request.to == FriendUser(id: bohdan, displayName: "Bohdan"))

        let annas = try await f.friends.requests(of: anna)
        let bohdans = try await f.friends.requests(of: bohdan)
        #expect(annas.outgoing.map(\.id) == [request.id] && annas.incoming.isEmpty)
        #expect(bohdans.incoming.map(\.id) == [request.id] && bohdans.outgoing.isEmpty)

        // Only the recipient may accept.
        await #expect(throws: FriendService.requestNotFound) { try await f.friends.accept(request: request.id, by: anna) }
        let accepted = try await f.friends.accept(request: request.id, by: bohdan)
        #expect(accepted.status == .accepted)
        #expect(try await f.friends.friends(of: anna).map(\.id) == [bohdan])
        #expect(try await f.friends.friends(of: bohdan).map(\.id) == [anna])
        #expect(try await f.friends.requests(of: bohdan).incoming.isEmpty)
        await #expect(throws: MeetError("friend.alreadyFriends", status: 409)) {
            try await f.friends.sendRequest(from: bohdan, to: anna)
        }
    }

    @Test func askingTwiceKeepsOneRequestAndAskingBackAccepts() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan) = (try await f.user("Anna"), try await f.user("Bohdan"))
        let first = try await f.friends.sendRequest(from: anna, to: bohdan)
        let again = try await f.friends.sendRequest(from: anna, to: bohdan)
        #expect(again.id == first.id)
        let back = try await f.friends.sendRequest(from: bohdan, to: anna)
        #expect(back.id == first.id && back.status == .accepted)
        #expect(try await f.friends.friends(of: anna).map(\.id) == [bohdan])
    }

    @Test func declineAndCancelRemoveTheRequestForTheRightPersonOnly() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan) = (try await f.user("Anna"), try await f.user("Bohdan"))
        let request = try await f.friends.sendRequest(from: anna, to: bohdan)
        await #expect(throws: FriendService.requestNotFound) { try await f.friends.decline(request: request.id, by: anna) }
        await #expect(throws: FriendService.requestNotFound) { try await f.friends.cancel(request: request.id, by: bohdan) }
        try await f.friends.decline(request: request.id, by: bohdan)
        #expect(try await f.friends.requests(of: anna).outgoing.isEmpty)

        let second = try await f.friends.sendRequest(from: anna, to: bohdan)
        try await f.friends.cancel(request: second.id, by: anna)
        #expect(try await f.friends.requests(of: bohdan).incoming.isEmpty)
        await #expect(throws: FriendService.requestNotFound) { try await f.friends.accept(request: second.id, by: bohdan) }
        #expect(try await f.friends.friends(of: anna).isEmpty)
    }

    @Test func refusesSelfAndStrangersThatDoNotExist() async throws {
        let f = try FriendsFixture()
        let anna = try await f.user("Anna")
        let unconfirmed = try await f.user("Unconfirmed", confirmed: false)
        await #expect(throws: FriendService.userNotFound) { try await f.friends.sendRequest(from: anna, to: unconfirmed) }
        await #expect(throws: MeetError.self) { try await f.friends.sendRequest(from: anna, to: anna) }
        await #expect(throws: FriendService.userNotFound) { try await f.friends.sendRequest(from: anna, to: "nobody") }
        await #expect(throws: FriendService.userNotFound) { try await f.friends.block("nobody", by: anna) }
        await #expect(throws: MeetError("friend.notFriends", status: 404)) { try await f.friends.unfriend("nobody", by: anna) }
    }

    @Test func unfriendEndsItForBoth() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan) = (try await f.user("Anna"), try await f.user("Bohdan"))
        let request = try await f.friends.sendRequest(from: anna, to: bohdan)
        _ = try await f.friends.accept(request: request.id, by: bohdan)
        try await f.friends.unfriend(anna, by: bohdan)
        #expect(try await f.friends.friends(of: anna).isEmpty)
        #expect(try await f.friends.friends(of: bohdan).isEmpty)
    }

    @Test func blockingEndsTheFriendshipAndHidesBothWays() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan, ghost) = (try await f.user("Anna"), try await f.user("Bohdan"), "no-such-user")
        let request = try await f.friends.sendRequest(from: anna, to: bohdan)
        _ = try await f.friends.accept(request: request.id, by: bohdan)
        _ = try await f.friends.sendRequest(from: anna, to: try await f.user("Chrystia"))

        try await f.friends.block(anna, by: bohdan)
        try await f.friends.block(anna, by: bohdan) // twice is fine
        #expect(try await f.friends.friends(of: anna).isEmpty)
        #expect(try await f.friends.friends(of: bohdan).isEmpty)
        #expect(try await f.friends.blocked(by: bohdan).map(\.id) == [anna])
        #expect(try await f.database.reader.read { db in try Blocks.isBlocked(db, anna, bohdan) })
        #expect(try await f.database.reader.read { db in try Blocks.isBlocked(db, bohdan, anna) })

        // The blocked one gets exactly the answer for a user who does not exist...
        var answers: [MeetError] = []
        for target in [bohdan, ghost] {
            do {
                _ = try await f.friends.sendRequest(from: anna, to: target)
            } catch let error as MeetError {
                answers.append(error)
            }
        }
        #expect(answers == [FriendService.userNotFound, FriendService.userNotFound])
        // ...and so does the blocker.
        await #expect(throws: FriendService.userNotFound) { try await f.friends.sendRequest(from: bohdan, to: anna) }

        try await f.friends.unblock(anna, by: bohdan)
        await #expect(throws: MeetError("block.notFound", status: 404)) { try await f.friends.unblock(anna, by: bohdan) }
        #expect(try await f.database.reader.read { db in try Blocks.isBlocked(db, anna, bohdan) } == false)
        #expect(try await f.friends.sendRequest(from: anna, to: bohdan).status == .pending)
    }

    @Test func requestsAreRecordedAsDomainEventsForTheOtherUser() async throws {
        let f = try FriendsFixture()
        let (anna, bohdan, chrystia, dmytro) = (try await f.user("Anna"), try await f.user("Bohdan"),
                                                 try await f.user("Chrystia"), try await f.user("Dmytro"))
        _ = try await f.friends.accept(request: try await f.friends.sendRequest(from: anna, to: bohdan).id, by: bohdan)
        try await f.friends.cancel(request: try await f.friends.sendRequest(from: anna, to: chrystia).id, by: anna)
        try await f.friends.decline(request: try await f.friends.sendRequest(from: anna, to: dmytro).id, by: dmytro)

        let events = try await f.database.reader.read { db in try DomainEvents.pending(for: "test", in: db) }
        #expect(events.map(\.kind) == [
            .friendRequestSent, .friendRequestAccepted, .friendRequestSent, .friendRequestCancelled, .friendRequestSent,
        ])
        let payloads = try events.map { try JSONDecoder().decode(FriendEventPayload.self, from: $0.payload) }
        #expect(payloads.map(\.recipients) == [[bohdan], [anna], [chrystia], [chrystia], [dmytro]])
        #expect(payloads.map(\.actorName) == ["Anna", "Bohdan", "Anna", "Anna", "Anna"])
    }

    @Test func suggestsFriendsOfFriendsByMutualCount() async throws {
        let f = try FriendsFixture()
        let me = try await f.user("Me")
        let (a, b, c) = (try await f.user("A"), try await f.user("B"), try await f.user("C"))
        let (fof1, fof2, blocked, pending) = (try await f.user("Two mutual"), try await f.user("One mutual"),
                                              try await f.user("Blocked"), try await f.user("Pending"))
        func befriend(_ x: String, _ y: String) async throws {
            let request = try await f.friends.sendRequest(from: x, to: y)
            _ = try await f.friends.accept(request: request.id, by: y)
        }
        for friend in [a, b, c] { try await befriend(me, friend) }
        try await befriend(a, fof1)
        try await befriend(b, fof1)
        try await befriend(c, fof2)
        try await befriend(a, b) // a friend of a friend who is my friend already
        try await befriend(a, blocked)
        try await befriend(a, pending)
        try await f.friends.block(me, by: blocked)
        _ = try await f.friends.sendRequest(from: pending, to: me)

        let suggestions = try await f.friends.suggestions(for: me)
        #expect(suggestions.map(\.id) == [fof1, fof2])
        #expect(suggestions.map(\.mutualFriends) == [2, 1])
    }

    @Test func suggestsPeopleWhoShareMyActivitiesToo() async throws {
        let f = try FriendsFixture()
        let (me, friend) = (try await f.user("Me"), try await f.user("Friend"))
        let (threeShared, oneMutual, oneShared) = (try await f.user("Three shared"), try await f.user("One mutual"), try await f.user("One shared"))
        let hidden = try await f.user("Unconfirmed", confirmed: false)
        _ = try await f.friends.accept(request: try await f.friends.sendRequest(from: me, to: friend).id, by: friend)
        _ = try await f.friends.accept(request: try await f.friends.sendRequest(from: friend, to: oneMutual).id, by: oneMutual)
        try await f.likes(me, firstActivities: 3)
        try await f.likes(threeShared, firstActivities: 3)
        try await f.likes(oneShared, firstActivities: 1)
        try await f.likes(hidden, firstActivities: 3)
        try await f.likes(friend, firstActivities: 3) // a friend already: never suggested

        let suggestions = try await f.friends.suggestions(for: me)
        #expect(suggestions.map(\.id) == [threeShared, oneMutual, oneShared])
        #expect(suggestions.map(\.sharedActivities) == [3, 0, 1])
        #expect(suggestions.map(\.mutualFriends) == [0, 1, 0])
    }
}
