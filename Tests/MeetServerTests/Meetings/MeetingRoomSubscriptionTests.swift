import Foundation
import NIOCore
import NIOPosix
import Stomp
import Testing
@testable import MeetServer

/// SUBSCRIBE to a meeting's rooms over a real STOMP connection (plain TCP, the same broker and
/// rules as `/ws`): members only, and a private meeting looks like no meeting at all.
@Suite(.timeLimit(.minutes(1))) struct MeetingRoomSubscriptionTests {
    @Test func onlyMembersMayJoinAMeetingsRooms() async throws {
        let stompPort = try await Self.freeLoopbackPort()
        try await TestServer.run(stompPort: stompPort) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let dan = try await server.signedInUser()
            let open = try #require(try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(), token: ann.token).string("id"))
            let closed = try #require(try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["visibility": "private", "inviteeIds": [dan.id]]),
                token: ann.token).string("id"))
            // Waits for the room's note of the join, which would otherwise race with the receipts.
            try await ChatRoomTests.join(server, bob, open)

            let organizer = try await Self.connect(port: stompPort, token: ann.token)
            let member = try await Self.connect(port: stompPort, token: bob.token)
            let outsider = try await Self.connect(port: stompPort, token: cy.token)
            let invitee = try await Self.connect(port: stompPort, token: dan.token)

            for room in ["chat", "typing", "locations"] {
                #expect(try await Self.subscribe(organizer, to: "/topic/meetings.\(open).\(room)").command == .receipt)
                #expect(try await Self.subscribe(member, to: "/topic/meetings.\(open).\(room)").command == .receipt)
                #expect(try await Self.subscribe(organizer, to: "/topic/meetings.\(closed).\(room)").command == .receipt)
            }
            let notMember = try await Self.subscribe(outsider, to: "/topic/meetings.\(open).chat")
            #expect(notMember.command == .message && notMember.headers["code"] == "meeting.notMember")
            let invited = try await Self.subscribe(invitee, to: "/topic/meetings.\(closed).chat")
            #expect(invited.headers["code"] == "meeting.notMember")

            // A private meeting the caller has no part in answers exactly like an unknown id.
            let privateRoom = try await Self.subscribe(outsider, to: "/topic/meetings.\(closed).chat")
            let unknownRoom = try await Self.subscribe(outsider, to: "/topic/meetings.unknown.chat")
            #expect(privateRoom.headers["code"] == "meeting.notFound")
            #expect(unknownRoom.headers["code"] == "meeting.notFound")
            #expect(privateRoom.text.replacingOccurrences(of: closed, with: "unknown") == unknownRoom.text)

            // Refusals leave the session open; rooms are for listening, posting goes through /app.
            #expect(try await Self.subscribe(outsider, to: "/topic/meetings.\(open).typing").headers["code"] == "meeting.notMember")
            try await member.send(StompFrame(.send, headers: ["destination": "/topic/meetings.\(open).chat", "receipt": "sent"], text: "hi"))
            #expect(try #require(try await member.next()).headers["code"] == "destination.forbidden")
            for client in [organizer, member, outsider, invitee] { await client.close() }
        }
    }

    /// Logging out over REST ends the STOMP session signed in with that token at once, without
    /// waiting for its next frame: ERROR `auth.sessionEnded`, then the close. A second sign-in of
    /// the same user, still valid, carries on.
    @Test func aSessionEndsWithItsSignIn() async throws {
        let stompPort = try await Self.freeLoopbackPort()
        try await TestServer.run(stompPort: stompPort) { server in
            let ann = try await server.signedInUser()
            let meeting = try #require(try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(), token: ann.token).string("id"))
            let otherSignIn = try await server.login(ann.email)
            let revoked = try await Self.connect(port: stompPort, token: ann.token)
            let kept = try await Self.connect(port: stompPort, token: otherSignIn)
            #expect(try await Self.subscribe(revoked, to: "/topic/meetings.\(meeting).typing").command == .receipt)

            #expect(try await server.send(.post, "/api/v1/auth/logout", token: ann.token).status == 204)
            // Without the ending the session would stay open and this wait last until the time limit.
            let ending = try #require(try await revoked.next())
            #expect(ending.command == .error)
            #expect(ending.headers["code"] == "auth.sessionEnded")
            #expect(ending.headers["message"]?.contains("signed out") == true)
            #expect(try await revoked.next() == nil)

            #expect(try await Self.subscribe(kept, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            await kept.close()
        }
    }

    @Test func roomTopicsAreParsedStrictly() {
        #expect(MeetingTopic(destination: "/topic/meetings.a1_B-2.chat")?.meetingId == "a1_B-2")
        #expect(MeetingTopic(destination: "/topic/meetings.m1.locations")?.meetingId == "m1")
        #expect(MeetingTopic(destination: "/topic/meetings.m1.typing")?.room == .typing)
        for other in ["/topic/meetings..chat", "/topic/meetings.m1.chat.x", "/topic/meetings.m1.chatter", "/topic/meetings.m1",
                      "/app/meetings.m1.chat", "/topic/sandbox.m1.chat"] {
            #expect(MeetingTopic(destination: other) == nil, "\(other)")
        }
    }

    /// A signed-in session that hears its refusals on `/user/queue/errors`. The TCP listener
    /// starts beside the HTTP server, so the first attempts may find nobody listening yet.
    static func connect(port: Int, token: String) async throws -> StompClient {
        var attempt = 0
        while true {
            do {
                let client = try await StompClient.connect(
                    host: "127.0.0.1", port: port, headers: ["accept-version": "1.2", "host": "localhost", "passcode": token],
                    timeout: .seconds(30))
                try await client.send(StompFrame(.subscribe, headers: ["id": "errors", "destination": "/user/queue/errors"]))
                return client
            } catch where !(error is StompClient.ConnectError || error is StompClient.TimedOut) && attempt < 50 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Subscribes asking for a receipt: the answer is the RECEIPT, or the refusal on the errors queue.
    static func subscribe(_ client: StompClient, to destination: String) async throws -> StompFrame {
        try await client.send(StompFrame(.subscribe, headers: ["id": destination, "destination": destination, "receipt": destination]))
        return try #require(try await client.next())
    }

    /// A port for a test server's `--stomp-port`: free now, and below the kernel's ephemeral
    /// range. A port the kernel picked for a bind to port 0 could be handed out again, after the
    /// probe closes it, to another test server's listener or to a client connection's source
    /// port; the server's own bind then failed, the server was cancelled, and a test waiting for
    /// an HTTP answer hung (HummingbirdTesting's client cannot cancel a request on its timeout).
    /// Below the range the kernel never picks a port by itself.
    static func freeLoopbackPort() async throws -> Int {
        let ephemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        let candidates = max(1024, ephemeral / 2)..<max(1025, ephemeral)
        for _ in 0..<1000 {
            let port = Int.random(in: candidates)
            guard let channel = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: port).get() else { continue }
            try await channel.close()
            return port
        }
        throw NoFreePort(range: candidates)
    }

    struct NoFreePort: Error {
        let range: Range<Int>
    }
}
