import Foundation
import MeetCore
import NIOCore
import Stomp
import Testing

/// Edits and deletions by the author within their windows, redaction by the organizer: each is
/// an event with its own seq referring to the message, and history shows the latest state.
@Suite struct ChatEditTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    static func change(_ client: StompClient, _ action: String, in meeting: String, _ body: [String: any Sendable], receipt: String) async throws {
        let data = try JSONSerialization.data(withJSONObject: body)
        try await client.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(meeting).\(action)", "receipt": receipt],
                                         body: ByteBuffer(data: data)))
    }

    @Test func authorsEditAndDeleteInTheirWindowOrganizersRedact() async throws {
        let clock = SkewedClock()
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(now: { [clock] in clock.now }, stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            try await Chat.join(server, bob, meeting)  // seq 1: the note that Bob joined
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            let author = try await Rooms.connect(port: port, token: bob.token)
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            // Seqs 2, 3 and 4.
            for (index, text) in ["hello", "second", "third"].enumerated() {
                try await Chat.post(author, to: meeting, text: text, id: "c\(index)", receipt: "p\(index)")
                _ = try await author.next()
                _ = try await organizer.next()
            }

            // The author edits: the room hears an `edited` event with its own seq.
            try await Self.change(author, "edit", in: meeting, ["seq": 2, "text": " hello again "], receipt: "e1")
            #expect(try #require(try await author.next()).headers["receipt-id"] == "e1")
            let edited = try #require(try await organizer.next())
            let editBody = Chat.json(edited)
            #expect(edited.headers["seq"] == "5" && editBody["type"] as? String == "edited")
            #expect(editBody["refersToSeq"] as? Int == 2 && editBody["text"] as? String == "hello again")
            // The same text again changes nothing and is still answered.
            try await Self.change(author, "edit", in: meeting, ["seq": 2, "text": "hello again"], receipt: "same")
            #expect(try #require(try await author.next()).headers["receipt-id"] == "same")

            // Others may not edit; only messages can be changed.
            try await Self.change(organizer, "edit", in: meeting, ["seq": 2, "text": "mine now"], receipt: "x")
            #expect(try #require(try await organizer.next()).headers["code"] == "chatMessage.notAuthor")
            for seq in [1, 5, 99] {
                try await Self.change(author, "delete", in: meeting, ["seq": seq], receipt: "x")
                #expect(try #require(try await author.next()).headers["code"] == "chatMessage.notFound")
            }

            // The author deletes; the organizer redacts someone else's message.
            try await Self.change(author, "delete", in: meeting, ["seq": 3], receipt: "d2")
            #expect(try #require(try await author.next()).headers["receipt-id"] == "d2")
            let deleted = Chat.json(try #require(try await organizer.next()))
            #expect(deleted["type"] as? String == "deleted" && deleted["refersToSeq"] as? Int == 3 && deleted["seq"] as? Int == 6)
            #expect(deleted["text"] is NSNull)

            // Past the edit window the author may no longer edit, but may still delete for a day.
            clock.setAhead(by: 16 * 60)
            try await Self.change(author, "edit", in: meeting, ["seq": 4, "text": "late"], receipt: "late")
            let late = try #require(try await author.next())
            #expect(late.headers["code"] == "chatMessage.changeWindowClosed", "\(late.text)")
            // A retry of a change that was made is still answered, the window closed or not.
            try await Self.change(author, "edit", in: meeting, ["seq": 2, "text": "hello again"], receipt: "retried")
            let retried = try #require(try await author.next())
            #expect(retried.command == .receipt && retried.headers["receipt-id"] == "retried", "\(retried.headers)")
            clock.setAhead(by: 25 * 3600)
            try await Self.change(author, "delete", in: meeting, ["seq": 4], receipt: "late")
            #expect(try #require(try await author.next()).headers["code"] == "chatMessage.changeWindowClosed")
            try await Self.change(author, "delete", in: meeting, ["seq": 3], receipt: "deleted again")
            let deletedAgain = try #require(try await author.next())
            #expect(deletedAgain.command == .receipt && deletedAgain.headers["receipt-id"] == "deleted again", "\(deletedAgain.headers)")
            try await Self.change(organizer, "delete", in: meeting, ["seq": 4], receipt: "r3")
            let redacted = try await Self.frames(organizer, 2)
            #expect(redacted.contains { $0.headers["receipt-id"] == "r3" })
            #expect(redacted.contains { Chat.json($0)["refersToSeq"] as? Int == 4 && ($0.headers["seq"] == "7") })

            // History: every seq, messages in their latest state.
            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: bob.token)
            let items = try #require(history.json["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["seq"] as? Int } == [7, 6, 5, 4, 3, 2, 1])
            let first = try #require(items.dropLast().last)
            #expect(first["text"] as? String == "hello again" && first["editedAt"] is String && first["deletedAt"] is NSNull)
            for message in items where [3, 4].contains(message["seq"] as? Int) {
                #expect(message["text"] is NSNull && message["deletedAt"] is String && message["type"] as? String == "message")
            }

            // Redacting the edited message also blanks its `edited` event (seq 5), which held its text.
            try await Self.change(organizer, "delete", in: meeting, ["seq": 2], receipt: "r4")
            #expect(try await Self.frames(organizer, 2).contains { $0.headers["receipt-id"] == "r4" })
            let redactedHistory = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: bob.token)
            let latest = try #require(redactedHistory.json["items"] as? [[String: Any]])
            #expect(!latest.contains { ($0["text"] as? String)?.contains("hello") == true })
            let editEvent = try #require(latest.first { $0["seq"] as? Int == 5 })
            #expect(editEvent["type"] as? String == "edited" && editEvent["refersToSeq"] as? Int == 2 && editEvent["text"] is NSNull)
            for client in [organizer, author] { await client.close() }
        }
    }

    /// The admin CLI redacts from its own process, through the same SQLite file: the running
    /// server broadcasts the `deleted` event (without a sender) from the event log.
    @Test func aModeratorRedactsFromAnotherProcess() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            #expect(try await Rooms.subscribe(organizer, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            try await Chat.post(organizer, to: meeting, text: "spam", id: "s", receipt: "r")
            let posted = try await Self.frames(organizer, 2).first { $0.command == .message }
            let messageId = try #require(posted.flatMap { Chat.json($0)["id"] as? String })

            let cli = try server.otherConnection()
            let event = try await cli.write { db in
                try ChatModeration.redact(messageId: messageId, by: "terminal:root", at: Date(), in: db)
            }
            #expect(event?.seq == 2 && event?.refersToSeq == 1)
            let heard = try #require(try await organizer.next())
            let body = Chat.json(heard)
            #expect(body["type"] as? String == "deleted" && body["refersToSeq"] as? Int == 1 && heard.headers["seq"] == "2")
            #expect((body["sender"] as? [String: Any])?["id"] is NSNull)
            let again = try await cli.write { db in
                try ChatModeration.redact(messageId: messageId, by: "terminal:root", at: Date(), in: db)
            }
            #expect(again == nil)
            try cli.close()
            await organizer.close()
        }
    }

    /// The next `count` frames (in whatever order a receipt and a broadcast arrive).
    static func frames(_ client: StompClient, _ count: Int) async throws -> [StompFrame] {
        try await Chat.frames(from: client) { $0.count == count }
    }
}
