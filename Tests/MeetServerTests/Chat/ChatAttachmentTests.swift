import Foundation
import NIOCore
import Stomp
import Testing

/// Photos in a meeting's chat: only the sender's own uploads, read by the room's members only.
@Suite(.timeLimit(.minutes(1))) struct ChatAttachmentTests {
    typealias Rooms = MeetingRoomSubscriptionTests

    static func post(_ client: StompClient, to meeting: String, _ fields: [String: Any], receipt: String) async throws -> StompFrame {
        let body = try JSONSerialization.data(withJSONObject: fields)
        try await client.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(meeting).chat", "receipt": receipt],
                                         body: ByteBuffer(data: body)))
        return try #require(try await client.next())
    }

    @Test func membersSendTheirOwnPhotosAndOnlyMembersSeeThem() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let meeting = try await ChatRoomTests.meeting(server, by: ann)
            try await ChatRoomTests.join(server, bob, meeting)
            let annsPhoto = try await server.uploadPhoto(token: ann.token)
            let bobsPhoto = try await server.uploadPhoto(token: bob.token)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            defer { Task { await organizer.close() } }
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)

            // Someone else's upload, too many photos, or the same one twice are refused, stating the field.
            let refusals: [([String], String)] = [
                ([bobsPhoto], "attachments: media.notOwned"),
                (Array(repeating: annsPhoto, count: 11), "attachments: field.tooMany"),
                ([annsPhoto, annsPhoto], "attachments: field.invalid"),
            ]
            for (attachments, problem) in refusals {
                let refusal = try await Self.post(organizer, to: meeting, ["text": "", "clientMessageId": "x", "attachments": attachments], receipt: "no")
                #expect(refusal.headers["code"] == "request.invalidFields" && refusal.text.contains(problem), "\(refusal.text)")
            }

            // A photo alone, without text (the key left out), is a message; the receipt follows
            // its broadcast.
            var frames: [StompFrame] = []
            let first = try await Self.post(organizer, to: meeting, ["clientMessageId": "p", "attachments": [annsPhoto]], receipt: "ok")
            frames.append(first)
            if first.command != .receipt { frames.append(try #require(try await organizer.next())) }
            let message = try #require(frames.first { $0.command == .message })
            #expect(ChatRoomTests.json(message)["attachments"] as? [String] == [annsPhoto])
            #expect(ChatRoomTests.json(message)["text"] is NSNull)
            #expect(frames.contains { $0.headers["receipt-id"] == "ok" })

            // Members read it; a stranger is told nothing exists.
            for (user, status) in [(bob, 200), (ann, 200), (cy, 404)] {
                #expect(try await server.send(.get, "/api/v1/media/\(annsPhoto)", token: user.token).status == status)
            }
        }
    }
}
