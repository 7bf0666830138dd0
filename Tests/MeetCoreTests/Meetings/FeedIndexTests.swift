import Foundation
import GRDB
import Testing
@testable import MeetCore

/// The feed answers from its in-memory index: every write shows at once, whatever made it,
/// and the index kept in step equals one loaded afresh from the file.
@Suite struct FeedIndexTests {
    static let center = FeedTests.center
    static let nearby = FeedRequest(lat: center.lat, lon: center.lon, radiusKm: 20)

    func titles(_ f: MeetingFixture, _ request: FeedRequest = nearby, viewer: String = "viewer") async throws -> [String] {
        try await f.service.feed(request, viewer: viewer).items.map(\.title)
    }

    /// A fixture whose index is loaded (by a first feed query) before the test writes.
    func loadedFixture(_ users: String...) async throws -> MeetingFixture {
        let f = try MeetingFixture()
        try f.users(["ann", "viewer"] + users)
        #expect(try await titles(f).isEmpty)
        return f
    }

    @Test func anUnloadedIndexRanksNothingRatherThanAnEmptyFeed() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        _ = try await f.service.create(MeetingFixture.draft(title: "run"), by: "ann")
        let rank = { f.service.index.rank(Self.nearby, from: 0, viewer: FeedViewer(), at: MeetingFixture.now.timeIntervalSince1970, depth: 10, sorted: 10) }
        #expect(rank() == nil)
        try await f.service.index.ready()
        #expect(rank()?.count == 1)
    }

    @Test func aCommitTouchingMoreMeetingsThanSQLiteHasParametersIsReRead() throws {
        let f = try MeetingFixture()
        let numbers = Set(Int64(1)...Int64(40_000))
        #expect(try f.database.reader.read { db in try FeedRows.meetings(numbers, from: 0, in: db) }.isEmpty)
    }

    @Test func createsJoinsLeavesAndCancelsShowAtOnce() async throws {
        let f = try await loadedFixture("bob")
        let meeting = try await f.service.create(MeetingFixture.draft(title: "run", capacity: 2), by: "ann")
        var spots = Self.nearby
        spots.hasSpots = true
        #expect(try await titles(f, spots) == ["run"])
        _ = try await f.service.join(meeting.id, by: "bob")
        #expect(try await titles(f, spots).isEmpty)
        #expect(try await f.service.feed(Self.nearby, viewer: "viewer").items.map(\.memberCount) == [2])
        try await f.service.leave(meeting.id, by: "bob")
        #expect(try await titles(f, spots) == ["run"])
        _ = try await f.service.cancel(meeting.id, by: "ann")
        #expect(try await titles(f).isEmpty)
    }

    @Test func editsOfVisibilityPlaceTimeAndActivitiesShowAtOnce() async throws {
        let f = try await loadedFixture()
        let meeting = try await f.service.create(MeetingFixture.draft(title: "chess", in: 10, activityIds: ["chess"]), by: "ann")
        _ = try await f.service.create(MeetingFixture.draft(title: "later", in: 20), by: "ann")
        func edit(_ change: (inout MeetingChanges) -> Void) async throws {
            var changes = MeetingChanges()
            change(&changes)
            _ = try await f.service.update(meeting.id, with: changes, by: "ann")
        }
        var chess = Self.nearby
        chess.activityIds = ["chess"]
        #expect(try await titles(f, chess) == ["chess"])
        try await edit { $0.activityIds = ["hiking"] }
        #expect(try await titles(f, chess).isEmpty)
        try await edit { $0.startsAt = MeetingFixture.time(hours: 30) }
        #expect(try await titles(f) == ["later", "chess"])
        try await edit { $0.place = PlaceInput(lat: Self.center.lat + 1, lon: Self.center.lon) }
        #expect(try await titles(f) == ["later"])
        try await edit { $0.place = PlaceInput(lat: Self.center.lat, lon: Self.center.lon) }
        try await edit { $0.visibility = "private" }
        #expect(try await titles(f) == ["later"])
    }

    @Test func newFriendsAndBlocksShowAtOnce() async throws {
        let f = try await loadedFixture("pal", "cy")
        let friends = FriendService(database: f.database, now: { MeetingFixture.now })
        _ = try await f.service.create(MeetingFixture.draft(title: "soon", in: 2), by: "ann")
        let withPal = try await f.service.create(MeetingFixture.draft(title: "pal goes", in: 40), by: "cy")
        _ = try await f.service.join(withPal.id, by: "pal")
        var relevance = Self.nearby
        relevance.sort = .relevance
        #expect(try await titles(f, relevance) == ["soon", "pal goes"])
        let request = try await friends.sendRequest(from: "viewer", to: "pal")
        _ = try await friends.accept(request: request.id, by: "pal")
        #expect(try await titles(f, relevance) == ["pal goes", "soon"])
        try await friends.block("viewer", by: "cy")
        #expect(try await titles(f, relevance) == ["soon"])
    }

    @Test func aRolledBackWriteChangesNothing() async throws {
        let f = try await loadedFixture()
        let meeting = try await f.service.create(MeetingFixture.draft(title: "run"), by: "ann")
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await f.database.writer.write { db in
                try db.execute(sql: "UPDATE meeting SET cancelledAt = 1 WHERE id = ?", arguments: [meeting.id])
                try db.execute(sql: "DELETE FROM meetingActivity")
                throw Abort()
            }
        }
        #expect(try await titles(f) == ["run"])
        try await expectSameAsReloaded(f)
    }

    @Test func writesInPlainSQLAreFollowedToo() async throws {
        let f = try await loadedFixture("bob")
        let meeting = try await f.service.create(MeetingFixture.draft(title: "run"), by: "ann")
        // Each alone: an activity row touches its meeting by trigger, a member row by its count.
        try await f.database.writer.write { db in
            try db.execute(sql: "INSERT INTO meetingActivity (meetingId, activityId) VALUES (?, 'chess')", arguments: [meeting.id])
        }
        try await expectSameAsReloaded(f)
        try await f.database.writer.write { db in
            try db.execute(sql: "INSERT INTO meetingMember (meetingId, userId, role, joinedAt) VALUES (?, 'bob', 'member', 0)", arguments: [meeting.id])
        }
        try await expectSameAsReloaded(f)
        try await f.database.writer.write { db in try db.execute(sql: "DELETE FROM user WHERE id = 'ann'") }
        #expect(try await titles(f).isEmpty)
        try await expectSameAsReloaded(f)
    }

    /// Random writes of every kind; after each batch the index kept in step must equal a
    /// fresh load, and the nearby date feed must equal a plain SQL answer.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomWritesKeepTheIndexEqualToTheDatabase(seed: UInt64) async throws {
        let users = (0..<8).map { "u\($0)" }
        let f = try await loadedFixture()
        try f.users(users)
        let friends = FriendService(database: f.database, now: { MeetingFixture.now })
        var generator = SpatialGridTests.Lcg(state: seed)
        func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        var ids: [String] = []
        for step in 0..<120 {
            let user = users[below(users.count)]
            let other = users[below(users.count)]
            let meeting = ids.isEmpty ? nil : ids[below(ids.count)]
            // Refusals (full, not a member, already friends...) are part of the mix.
            switch (below(9), meeting) {
            case (0...2, _), (_, nil):
                let draft = MeetingFixture.draft(
                    title: "m\(step)", visibility: below(5) == 0 ? "private" : "public", in: Double(1 + below(200)),
                    place: PlaceInput(lat: Self.center.lat + Double(below(41) - 20) / 100, lon: Self.center.lon),
                    capacity: below(2) == 0 ? nil : 1 + below(3),
                    activityIds: Array(["chess", "hiking", "running"].prefix(below(4))), online: below(6) == 0)
                ids.append(try await f.service.create(draft, by: user).id)
            case (3, let id?): _ = try? await f.service.join(id, by: user)
            case (4, let id?): try? await f.service.leave(id, by: user)
            case (5, let id?): _ = try? await f.service.cancel(id, by: user)
            case (6, let id?):
                var changes = MeetingChanges()
                changes.startsAt = MeetingFixture.time(hours: Double(1 + below(200)))
                changes.activityIds = below(2) == 0 ? [] : ["hiking"]
                changes.visibility = below(4) == 0 ? "private" : "public"
                _ = try? await f.service.update(id, with: changes, by: user)
            case (7, _):
                if let request = try? await friends.sendRequest(from: user, to: other) {
                    _ = try? await friends.accept(request: request.id, by: other)
                }
            default:
                try? await friends.block(other, by: user)
            }
            if step % 20 == 19 {
                try await expectSameAsReloaded(f)
                for viewer in users.prefix(3) {
                    var request = Self.nearby
                    request.limit = FeedRequest.maxLimit
                    let answer = try await f.service.feed(request, viewer: viewer).items.map(\.id)
                    #expect(answer == (try referenceFeed(f, request, viewer: viewer)))
                }
            }
        }
        // The mix did reach the friend graph.
        let (friendships, blocks) = try await f.database.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM friendship")!, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM block")!)
        }
        #expect(friendships > 0 && blocks > 0)
    }

    /// The nearby date feed in plain SQL and Swift, the way the first version of the feed
    /// found it, without the index.
    func referenceFeed(_ f: MeetingFixture, _ request: FeedRequest, viewer: String) throws -> [String] {
        let circle = try #require(request.circle)
        let rows = try f.database.reader.read { db in
            try Row.fetchAll(db, SQLRequest(literal: """
                SELECT id, online, lat, lon FROM meeting
                WHERE visibility = 'public' AND cancelledAt IS NULL AND startsAt >= \(MeetingFixture.now.timeIntervalSince1970)
                  AND \(Blocks.neitherBlocked(viewer, "organizerId"))
                ORDER BY startsAt, number
                """))
        }
        return rows.filter { row in
            row["online"] || circle.distanceKm(toLat: row["lat"], lon: row["lon"]) <= circle.radiusKm
        }.prefix(request.limit).map { $0["id"] }
    }

    /// The index of `f`'s service equals one loaded from the file now.
    func expectSameAsReloaded(_ f: MeetingFixture, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let fresh = FeedIndex(database: f.database, now: { MeetingFixture.now })
        try await fresh.ready()
        try await f.service.index.ready()
        #expect(f.service.index.state.listing == fresh.state.listing, sourceLocation: sourceLocation)
    }
}

extension FeedIndexState {
    /// Every entry in time order with its activities and members by id, whatever slots and
    /// interned numbers it got: two indexes of the same meetings list the same.
    var listing: [String] {
        let userIds = Dictionary(uniqueKeysWithValues: users.map { ($1, $0) })
        let activityIds = Dictionary(uniqueKeysWithValues: activities.map { ($1, $0) })
        return byTime.map { slot in
            let entry = entries[Int(slot)]
            let activities = activityLists[Int(slot)].map { activityIds[$0]! }.sorted()
            let members = memberLists[Int(slot)].map { userIds[$0]! }.sorted()
            var organizer = entry
            organizer.organizer = 0
            return "\(organizer) by \(userIds[entry.organizer]!) \(activities) \(members)"
        }
    }
}
