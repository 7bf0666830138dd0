import Foundation
import GRDB
import MeetCore
import NIOCore
import Stomp
import Testing

/// The room follows the meeting's life through the domain-event log: system messages for joins,
/// departures, time and place changes and the cancellation, and whoever stops belonging to the
/// meeting stops hearing its rooms within a second, on every device.
@Suite struct ChatRoomLifeTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    static func system(_ frame: StompFrame) -> (kind: String?, arguments: [String: String]) {
        let note = Chat.json(frame)["system"] as? [String: Any]
        return (note?["kind"] as? String, note?["arguments"] as? [String: String] ?? [:])
    }

    @Test func systemMessagesTellTheRoomWhatHappened() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)

            #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/join", token: bob.token).status == 200)
            let joined = try #require(try await organizer.next())
            #expect(Chat.json(joined)["type"] as? String == "system" && joined.headers["seq"] == "1")
            #expect(Self.system(joined).kind == "memberJoined" && Self.system(joined).arguments["userId"] == bob.id)
            #expect((Chat.json(joined)["sender"] as? [String: Any])?["id"] as? String == bob.id)

            // A title change says nothing; time and place do, with what they became.
            let later = MeetingEndToEndTests.time(hours: 48)
            let changes: [[String: any Sendable]] = [
                ["title": "Night run"], ["startsAt": later], ["place": ["lat": 49.8397, "lon": 24.0297] as [String: any Sendable]],
            ]
            for change in changes {
                #expect(try await server.send(.patch, "/api/v1/meetings/\(meeting)", json: change, token: ann.token).status == 200)
            }
            let time = try #require(try await organizer.next())
            #expect(Self.system(time).kind == "meetingEdited" && Self.system(time).arguments["changed"] == "time")
            #expect(Self.system(time).arguments["startsAt"] == later)
            let place = try #require(try await organizer.next())
            #expect(Self.system(place).arguments["changed"] == "place" && Self.system(place).arguments["placeName"] != nil)

            #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/leave", token: bob.token).status == 204)
            #expect(Self.system(try #require(try await organizer.next())).kind == "memberLeft")
            #expect(try await server.send(.delete, "/api/v1/meetings/\(meeting)", token: ann.token).status == 200)
            let cancelled = try #require(try await organizer.next())
            #expect(Self.system(cancelled).kind == "meetingCancelled" && cancelled.headers["seq"] == "5")

            // System messages of others count as unread; history has them all.
            let rooms = try await server.send(.get, "/api/v1/me/rooms", token: ann.token)
            #expect((rooms.json["items"] as? [[String: Any]])?.first?["unreadCount"] as? Int == 2, "\(rooms.text)")
            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: ann.token)
            #expect((history.json["items"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == Array(repeating: "system", count: 5))
            await organizer.close()
        }
    }

    @Test func leavingRemovalAndBlocksEndTheRoomsOnEveryDevice() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let members = [try await server.signedInUser(), try await server.signedInUser(), try await server.signedInUser()]
            let meeting = try await Chat.meeting(server, by: ann)
            for member in members { try await Chat.join(server, member, meeting) }
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            var devices: [[StompClient]] = []
            for member in members {
                var pair: [StompClient] = []
                for _ in 0..<2 {
                    let device = try await Rooms.connect(port: port, token: member.token)
                    for room in ["chat", "typing"] {
                        #expect(try await Rooms.subscribe(device, to: "/topic/meetings.\(meeting).\(room)").command == .receipt)
                    }
                    pair.append(device)
                }
                devices.append(pair)
            }

            // One leaves, one is removed by the organizer, one blocks the organizer.
            let ways: [(SignedInUser) async throws -> Int] = [
                { try await server.send(.post, "/api/v1/meetings/\(meeting)/leave", token: $0.token).status },
                { try await server.send(.delete, "/api/v1/meetings/\(meeting)/members/\($0.id)", token: ann.token).status },
                { try await server.send(.post, "/api/v1/blocks", json: ["userId": ann.id], token: $0.token).status },
            ]
            for (index, member) in members.enumerated() {
                let clock = ContinuousClock()
                let start = clock.now
                #expect([200, 201, 204].contains(try await ways[index](member)))
                for device in devices[index] {
                    // Notes of earlier departures may come first; the two refusals end the rooms.
                    let told = try await Chat.frames(from: device) { frames in
                        frames.filter { $0.headers["destination"] == "/user/queue/errors" }.count == 2
                    }.filter { $0.headers["destination"] == "/user/queue/errors" }
                    #expect(Set(told.compactMap { Chat.json($0)["destination"] as? String })
                            == ["/topic/meetings.\(meeting).chat", "/topic/meetings.\(meeting).typing"])
                    #expect(told.allSatisfy { $0.headers["destination"] == "/user/queue/errors" && $0.headers["code"] == "meeting.notMember" })
                }
                // The promise is one second from the change to every device.
                #expect(clock.now - start < .seconds(1), "member \(index)")
                _ = try await organizer.next()
            }

            // The organizer posts; none of the six devices hears it, and their sessions carry on.
            try await Chat.post(organizer, to: meeting, text: "still here?", id: "after", receipt: "r")
            _ = try await Chat.frames(from: organizer) { $0.count == 2 }
            for device in devices.joined() {
                let answer = try await Rooms.subscribe(device, to: "/user/queue/notifications")
                #expect(answer.command == .receipt)
                await device.close()
            }
            await organizer.close()
        }
    }

    /// A meeting deleted by a moderator from another process (the admin CLI), or with its
    /// organizer's account, ends its members' subscriptions to its rooms, as leaving does.
    @Test func aDeletedMeetingEndsItsMembersRooms() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let (ann, cy, bob) = (try await server.signedInUser(), try await server.signedInUser(), try await server.signedInUser())
            let deleted = try await Chat.meeting(server, by: ann)
            let organizerDeleted = try await Chat.meeting(server, by: cy)
            for meeting in [deleted, organizerDeleted] { try await Chat.join(server, bob, meeting) }
            let device = try await Rooms.connect(port: port, token: bob.token)
            let topics: Set = ["/topic/meetings.\(deleted).chat", "/topic/meetings.\(deleted).typing",
                               "/topic/meetings.\(organizerDeleted).chat"]
            for topic in topics.sorted() { #expect(try await Rooms.subscribe(device, to: topic).command == .receipt) }

            let pool = try server.otherConnection()
            defer { try? pool.close() }
            let database = try AppDatabase(pool)
            ChangeNudge.install(on: database, dataDirectory: server.dataDirectory.path)
            let moderation = ModerationService(database: database, now: Date.init)
            try await moderation.deleteMeeting(deleted, reason: "spam", by: .terminal(login: "mod"))
            try await moderation.deleteUser(cy.id, reason: "spam", by: .terminal(login: "mod"))
            let isRefusal = { (frame: StompFrame) in frame.headers["destination"] == "/user/queue/errors" }
            let told = try await Chat.frames(from: device) { $0.filter(isRefusal).count == 3 }.filter(isRefusal)
            #expect(Set(told.compactMap { Chat.json($0)["destination"] as? String }) == topics)
            #expect(told.allSatisfy { $0.headers["code"] == "meeting.notMember" })
            // The session carries on.
            #expect(try await Rooms.subscribe(device, to: "/user/queue/notifications").command == .receipt)
            await device.close()
        }
    }

    /// A pass over the event log that fails (a trigger stands in for an I/O error) is tried
    /// again, less and less often; a new event (a leave that must end subscriptions within a
    /// second) is read at once, not after the retry's wait, by then seconds long.
    @Test func aFailedReadOfTheEventsIsTriedAgain() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let other = try server.otherConnection()
            defer { try? other.close() }
            let (ann, bob, cy) = (try await server.signedInUser(), try await server.signedInUser(), try await server.signedInUser())
            let meeting = try await Chat.meeting(server, by: ann)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            try await other.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER chatFault BEFORE INSERT ON chatMessage WHEN NEW.type = 'system'
                    BEGIN SELECT RAISE(ABORT, 'disk trouble'); END
                    """)
            }
            #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/join", token: bob.token).status == 200)
            // Passes fail at 0, 0.25, 0.75, 1.75 and 3.75 s; the next waits until 7.75 s.
            try await Task.sleep(for: .seconds(6))
            try await other.write { db in try db.execute(sql: "DROP TRIGGER chatFault") }
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/join", token: cy.token).status == 200)
            let joined = [try #require(try await organizer.next()), try #require(try await organizer.next())]
            #expect(joined.map { Self.system($0).kind } == ["memberJoined", "memberJoined"])
            #expect(joined.compactMap { Self.system($0).arguments["userId"] } == [bob.id, cy.id])
            #expect(clock.now - start < .seconds(1), "the join waited for the retry")
            await organizer.close()
        }
    }
}
