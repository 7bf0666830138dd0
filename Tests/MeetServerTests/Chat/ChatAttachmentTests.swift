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

            // The photo (seq 2) gets a caption, then loses it again; a text alone cannot be emptied.
            let seq = try #require(message.headers["seq"].flatMap { Int($0) })
            for (caption, receipt) in [("the view", "captioned"), (" ", "uncaptioned")] {
                try await ChatEditTests.change(organizer, "edit", in: meeting, ["seq": seq, "text": caption], receipt: receipt)
                // The event and the receipt, unless refused.
                let first = try #require(try await organizer.next())
                let frames = first.headers["code"] != nil ? [first] : [first, try #require(try await organizer.next())]
                #expect(frames.contains { $0.command == .receipt && $0.headers["receipt-id"] == receipt }, "\(frames.map(\.text))")
                let edited = try #require(frames.first { $0.command == .message }.map(ChatRoomTests.json))
                #expect(edited["type"] as? String == "edited" && edited["refersToSeq"] as? Int == seq)
                #expect(caption == " " ? edited["text"] is NSNull : edited["text"] as? String == caption)
            }
            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: bob.token)
            let photo = try #require((history.json["items"] as? [[String: Any]])?.first { $0["seq"] as? Int == seq })
            #expect(photo["text"] is NSNull && photo["attachments"] as? [String] == [annsPhoto] && photo["editedAt"] is String)
            let posted = [try await Self.post(organizer, to: meeting, ["text": "words", "clientMessageId": "w"], receipt: "w"),
                          try #require(try await organizer.next())]
            let wordsSeq = try #require(posted.first { $0.command == .message }?.headers["seq"].flatMap { Int($0) })
            try await ChatEditTests.change(organizer, "edit", in: meeting, ["seq": wordsSeq, "text": ""], receipt: "emptied")
            let refusal = try #require(try await organizer.next())
            #expect(refusal.headers["code"] == "request.invalidFields" && refusal.text.contains("text: field.required"), "\(refusal.text)")
        }
    }
}
