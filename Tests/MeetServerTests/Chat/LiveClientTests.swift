import Foundation
import NIOCore
import Stomp
import Testing

/// Direct messages, typing and presence through our own StompClient (the stomp.py tests cover
/// the same over `/ws`): the real server, STOMP over TCP, every wait with a deadline.
@Suite(.timeLimit(.minutes(1))) struct LiveClientTests {
    typealias Frames = OnTheWayTests.Frames
    typealias Chat = ChatRoomTests

    static func befriend(_ server: TestServer, _ one: SignedInUser, _ other: SignedInUser) async throws {
        let request = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": other.id], token: one.token)
        let id = try #require(request.string("id"), "\(request.text)")
        #expect(try await server.send(.post, "/api/v1/friends/requests/\(id)/accept", token: other.token).status == 200)
    }

    static func send(_ frames: Frames, to destination: String, _ body: [String: any Sendable], receipt: String) async throws -> StompFrame {
        try await frames.client.send(StompFrame(
            .send, headers: ["destination": destination, "receipt": receipt, "content-type": "application/json"],
            body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))))
        return try await frames.answer(to: receipt)
    }

    static func subscribe(_ frames: Frames, to destination: String) async throws -> StompFrame {
        try await frames.client.send(StompFrame(.subscribe, headers: ["id": destination, "destination": destination, "receipt": destination]))
        return try await frames.answer(to: destination)
    }

    static func heard(_ frames: Frames, on destination: String) async throws -> [String: Any] {
        Chat.json(try await frames.take("MESSAGE on \(destination)") { $0.headers["destination"] == destination })
    }

    @Test func directMessagesReachBothFriendsOnEveryDevice() async throws {
        let port = try await MeetingRoomSubscriptionTests.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cat = try await server.signedInUser()
            try await Self.befriend(server, ann, bob)
            var devices: [Frames] = []
            for user in [ann, ann, bob, bob] {
                let device = try await OnTheWayTests.connect(port, user)
                #expect(try await Self.subscribe(device, to: "/user/queue/direct").command == .receipt)
                devices.append(device)
            }
            let message = ["text": "on my way", "clientMessageId": "d-1"]
            #expect(try await Self.send(devices[0], to: "/app/direct.\(bob.id)", message, receipt: "r1").command == .receipt)
            for device in devices {
                let body = try await Self.heard(device, on: "/user/queue/direct")
                #expect(body["text"] as? String == "on my way" && body["recipientId"] as? String == bob.id && body["seq"] as? Int == 1)
            }
            // The same clientMessageId again is answered, not stored twice: the next one is seq 2.
            #expect(try await Self.send(devices[0], to: "/app/direct.\(bob.id)", message, receipt: "r2").command == .receipt)
            #expect(try await Self.send(devices[2], to: "/app/direct.\(ann.id)", ["text": "see you", "clientMessageId": "d-2"], receipt: "r3").command == .receipt)
            #expect(try await Self.heard(devices[1], on: "/user/queue/direct")["seq"] as? Int == 2)

            // A stranger gets the answer an unknown user gets.
            let stranger = try await OnTheWayTests.connect(port, cat)
            let refused = try await Self.send(stranger, to: "/app/direct.\(ann.id)", ["text": "hi", "clientMessageId": "x"], receipt: "x")
            #expect(refused.headers["code"] == "user.notFound")
            for device in devices + [stranger] { await device.close() }
        }
    }

    @Test func typingIsRelayedAndPresenceFollowsAFriend() async throws {
        let port = try await MeetingRoomSubscriptionTests.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            try await Self.befriend(server, ann, bob)
            let meeting = try await Chat.meeting(server, by: ann)
            try await Chat.join(server, bob, meeting)

            let annDevice = try await OnTheWayTests.connect(port, ann)
            // Bob is not connected yet: the snapshot says offline.
            #expect(try await Self.subscribe(annDevice, to: "/topic/presence.friends").command == .receipt)
            let snapshot = try await Self.heard(annDevice, on: "/topic/presence.friends")
            #expect(snapshot["userId"] as? String == bob.id && snapshot["status"] as? String == "offline")

            let bobDevice = try await OnTheWayTests.connect(port, bob)
            #expect(try await Self.heard(annDevice, on: "/topic/presence.friends")["status"] as? String == "online")
            #expect(try await Self.send(bobDevice, to: "/app/presence", ["status": "away"], receipt: "away").command == .receipt)
            #expect(try await Self.heard(annDevice, on: "/topic/presence.friends")["status"] as? String == "away")

            let topic = "/topic/meetings.\(meeting).typing"
            #expect(try await Self.subscribe(annDevice, to: topic).command == .receipt)
            #expect(try await Self.send(bobDevice, to: "/app/meetings.\(meeting).typing", ["typing": true], receipt: "t").command == .receipt)
            let typing = try await Self.heard(annDevice, on: topic)
            #expect(typing["userId"] as? String == bob.id && typing["meetingId"] as? String == meeting && typing["typing"] as? Bool == true)
            for device in [annDevice, bobDevice] { await device.close() }
        }
    }
}
