import Foundation
import GRDB
import MeetCore
import Stomp
import Testing

/// A room grant the authorizer remembered (``RoomGrants``) never lets a frame through once a
/// write that would refuse it has committed. Each case first has the member's typing SEND
/// receipted (which leaves a grant for the room), then makes one kind of change, then sends
/// again: a write of this server is refused at the very next frame; a write of another process
/// (here a second connection to the file, like `meetupd admin` or the sqlite3 shell, without
/// a nudge) once the change log's poll has brought it, so those cases send until refused,
/// with a deadline. Typing SENDs are used because only the authorizer decides them (a chat
/// post would also be refused by the group commit's own membership check).
@Suite(.timeLimit(.minutes(1))) struct RoomGrantTests {
    typealias Rooms = MeetingRoomSubscriptionTests

    /// A typing SEND asking for a receipt: the answer is the RECEIPT, or the refusal.
    static func typing(_ client: StompClient, in meeting: String) async throws -> StompFrame? {
        let headers: StompHeaders = ["destination": "/app/meetings.\(meeting).typing", "content-type": "application/json", "receipt": "t"]
        try await client.send(StompFrame(.send, headers: headers, text: #"{"typing":true}"#))
        return try await client.next()
    }

    /// Sends until the answer is not a RECEIPT (another process's write reaches the server
    /// within the change log's poll); the refusal, or nil if the connection closed.
    static func typingUntilRefused(_ client: StompClient, in meeting: String) async throws -> StompFrame? {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            let answer = try await typing(client, in: meeting)
            guard answer?.command == .receipt else { return answer }
            guard ContinuousClock.now < deadline else { Issue.record("still admitted after 15 s"); return answer }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Ann's meeting with Bob as a member, Bob's session, and a grant for the room.
    static func grantedMember(_ server: TestServer, port: Int) async throws -> (ann: SignedInUser, bob: SignedInUser, meeting: String, StompClient) {
        let ann = try await server.signedInUser()
        let bob = try await server.signedInUser()
        let meeting = try await ChatRoomTests.meeting(server, by: ann)
        try await ChatRoomTests.join(server, bob, meeting)
        let client = try await Rooms.connect(port: port, token: bob.token)
        #expect(try await typing(client, in: meeting)?.command == .receipt)
        #expect(try await typing(client, in: meeting)?.command == .receipt)  // by the grant
        return (ann, bob, meeting, client)
    }

    @Test func leavingRemovalAndABlockEndTheGrantAtOnce() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            // Each change, and the refusal it leads to (a blocked organizer's meeting is hidden).
            let changes: [(code: String, make: (SignedInUser, SignedInUser, String) async throws -> Void)] = [
                ("meeting.notMember", { _, bob, meeting in
                    let left = try await server.send(.post, "/api/v1/meetings/\(meeting)/leave", token: bob.token)
                    #expect(left.status == 204)
                }),
                ("meeting.notMember", { ann, bob, meeting in
                    let removed = try await server.send(.delete, "/api/v1/meetings/\(meeting)/members/\(bob.id)", token: ann.token)
                    #expect(removed.status == 204)
                }),
                ("meeting.notFound", { ann, bob, _ in
                    let blocked = try await server.send(.post, "/api/v1/blocks", json: ["userId": ann.id], token: bob.token)
                    #expect(blocked.status == 204)
                }),
            ]
            for change in changes {
                let (ann, bob, meeting, client) = try await Self.grantedMember(server, port: port)
                try await change.make(ann, bob, meeting)
                let refusal = try await Self.typing(client, in: meeting)
                #expect(refusal?.command == .message && refusal?.headers["code"] == change.code, "\(String(describing: refusal))")
                await client.close()
            }
        }
    }

    @Test func anotherProcessesRevocationBanAndRemovalEndTheGrant() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let other = try server.otherConnection()
            defer { try? other.close() }
            let changes: [(sql: String, code: String)] = [
                ("DELETE FROM accessToken WHERE userId = ?", "auth.sessionEnded"),
                ("UPDATE user SET banned = 1 WHERE id = ?", "auth.sessionEnded"),
                ("DELETE FROM meetingMember WHERE userId = ?", "meeting.notMember"),
            ]
            for change in changes {
                let (_, bob, meeting, client) = try await Self.grantedMember(server, port: port)
                try await other.write { db in try db.execute(sql: change.sql, arguments: [bob.id]) }
                let refusal = try await Self.typingUntilRefused(client, in: meeting)
                #expect(refusal?.headers["code"] == change.code, "\(change.sql): \(String(describing: refusal))")
                await client.close()
            }
        }
    }

    /// A ban from another process reaches the server's sessions only with the change log's
    /// poll; what the banned user sends meanwhile, to a room or a friend, is not stored.
    @Test func postsFromAUserBannedByAnotherProcessAreNotStored() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let other = try server.otherConnection()
            defer { try? other.close() }
            let (ann, bob, meeting, client) = try await Self.grantedMember(server, port: port)
            try await LiveClientTests.befriend(server, ann, bob)
            try await other.write { db in try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = ?", arguments: [bob.id]) }
            for (destination, id) in [("/app/meetings.\(meeting).chat", "m"), ("/app/direct.\(ann.id)", "d")] {
                // Sent at once, before the poll; should the session have closed already, it is not stored either.
                try? await client.send(StompFrame(.send, headers: ["destination": destination, "receipt": id, "content-type": "application/json"],
                                                  text: #"{"text":"after the ban","clientMessageId":"\#(id)"}"#))
            }
            var answers: [StompFrame] = []
            while answers.count < 2, let frame = try await client.next() { answers.append(frame) }
            #expect(!answers.contains { $0.command == .receipt }, "\(answers.map(\.headers))")
            let stored = try await other.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM chatMessage WHERE text = 'after the ban'")
            }
            #expect(stored == 0)
            await client.close()
        }
    }

    @Test func anExpiredTokenIsRefusedDespiteItsGrant() async throws {
        let port = try await Rooms.freeLoopbackPort()
        let clock = SkewedClock()
        try await TestServer.run(now: { clock.now }, stompPort: port) { server in
            let (_, _, meeting, client) = try await Self.grantedMember(server, port: port)
            // Half a minute before the token expires: the grant found again (its use was due
            // to be noted) now outlives the token, and is used until the token expires.
            clock.setAhead(by: AccountService.sessionLifetime - 30)
            #expect(try await Self.typing(client, in: meeting)?.command == .receipt)
            #expect(try await Self.typing(client, in: meeting)?.command == .receipt)
            clock.setAhead(by: AccountService.sessionLifetime + 1)
            let refusal = try await Self.typing(client, in: meeting)
            #expect(refusal?.command == .error && refusal?.headers["code"] == "auth.sessionEnded", "\(String(describing: refusal))")
            await client.close()
        }
    }
}
