import Foundation
import NIOCore
import Stomp
import Testing

/// A meeting's chat room over real STOMP connections (plain TCP, the same broker as `/ws`) and
/// REST history, against the real server and its SQLite file.
@Suite struct ChatRoomTests {
    typealias Rooms = MeetingRoomSubscriptionTests

    static func post(_ client: StompClient, to meeting: String, text: String, id: String, receipt: String? = nil) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["text": text, "clientMessageId": id])
        var headers: StompHeaders = ["destination": "/app/meetings.\(meeting).chat", "content-type": "application/json"]
        if let receipt { headers.add("receipt", receipt) }
        try await client.send(StompFrame(.send, headers: headers, body: ByteBuffer(data: body)))
    }

    /// Reads frames until `done` says it has what it waits for; returns them all.
    static func frames(from client: StompClient, until done: ([StompFrame]) -> Bool) async throws -> [StompFrame] {
        var frames: [StompFrame] = []
        while !done(frames) {
            frames.append(try #require(try await client.next()))
        }
        return frames
    }

    static func json(_ frame: StompFrame) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(frame.body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// Joins `user` to the meeting and waits for the room's `memberJoined` system message (written
    /// from the event log just after the join), so that the seqs a test counts come after it.
    static func join(_ server: TestServer, _ user: SignedInUser, _ meeting: String) async throws {
        #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/join", token: user.token).status == 200)
        for _ in 0..<500 {
            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages?limit=200", token: user.token)
            let notes = (history.json["items"] as? [[String: Any]] ?? []).compactMap { $0["system"] as? [String: Any] }
            if notes.contains(where: { ($0["arguments"] as? [String: String])?["userId"] == user.id && $0["kind"] as? String == "memberJoined" }) {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no memberJoined message for \(user.id)")
    }

    static func meeting(_ server: TestServer, by user: SignedInUser, _ fields: [String: any Sendable] = [:]) async throws -> String {
        try #require(try await server.send(.post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(fields), token: user.token).string("id"))
    }

    @Test func aMembersMessageIsStoredThenBroadcastAndReceipted() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let meeting = try await Self.meeting(server, by: ann)
            try await Self.join(server, bob, meeting)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            let member = try await Rooms.connect(port: port, token: bob.token)
            for client in [organizer, member] {
                #expect(try await Rooms.subscribe(client, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            }

            try await Self.post(member, to: meeting, text: "  See you at seven 🎉  ", id: "c-1", receipt: "r-1")
            let sent = try await Self.frames(from: member) { frames in
                frames.contains { $0.command == .receipt } && frames.contains { $0.command == .message }
            }
            #expect(sent.first { $0.command == .receipt }?.headers["receipt-id"] == "r-1")
            let heard = try #require(try await organizer.next())
            // Seq 1 is the room's note that Bob joined.
            #expect(heard.command == .message && heard.headers["seq"] == "2" && heard.headers["content-type"] == "application/json")
            let body = Self.json(heard)
            #expect(body["text"] as? String == "See you at seven 🎉" && body["seq"] as? Int == 2 && body["type"] as? String == "message")
            #expect(body["clientMessageId"] as? String == "c-1" && body["meetingId"] as? String == meeting)
            #expect((body["sender"] as? [String: Any])?["id"] as? String == bob.id)
            #expect(body.keys.contains("replyToSeq") && body.keys.contains("attachments"))

            // The same clientMessageId again: answered, not stored or broadcast twice.
            try await Self.post(member, to: meeting, text: "See you at seven 🎉", id: "c-1", receipt: "r-2")
            #expect(try #require(try await member.next()).headers["receipt-id"] == "r-2")
            try await Self.post(member, to: meeting, text: "second", id: "c-2", receipt: "r-3")
            let next = try #require(try await organizer.next())
            #expect(next.headers["seq"] == "3" && Self.json(next)["text"] as? String == "second")

            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: ann.token)
            #expect((history.json["items"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [3, 2, 1], "\(history.text)")
            for client in [organizer, member] { await client.close() }
        }
    }

    @Test func outsidersAndBadMessagesAreRefusedWithoutEndingTheSession() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let open = try await Self.meeting(server, by: ann)
            let closed = try await Self.meeting(server, by: ann, ["visibility": "private"])
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            let outsider = try await Rooms.connect(port: port, token: cy.token)

            try await Self.post(outsider, to: open, text: "hi", id: "x", receipt: "r")
            #expect(try #require(try await outsider.next()).headers["code"] == "meeting.notMember")
            try await Self.post(outsider, to: closed, text: "hi", id: "x", receipt: "r")
            let hidden = try #require(try await outsider.next())
            try await Self.post(outsider, to: "no-such-meeting", text: "hi", id: "x", receipt: "r")
            let unknown = try #require(try await outsider.next())
            #expect(hidden.headers["code"] == "meeting.notFound" && unknown.headers["code"] == "meeting.notFound")

            for (text, problem) in [("   ", "text: field.required"), (String(repeating: "я", count: 4001), "text: chatMessage.tooLong")] {
                try await Self.post(organizer, to: open, text: text, id: "bad", receipt: "r")
                let refusal = try #require(try await organizer.next())
                #expect(refusal.headers["code"] == "request.invalidFields" && refusal.text.contains(problem), "\(refusal.text)")
            }
            let withPhoto = try JSONSerialization.data(withJSONObject: ["text": "look", "clientMessageId": "a", "attachments": ["m1"]])
            try await organizer.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(open).chat", "receipt": "r"],
                                                body: ByteBuffer(data: withPhoto)))
            #expect(try #require(try await organizer.next()).text.contains("attachments: media.notOwned"))
            try await organizer.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(open).chat", "receipt": "r"], text: "not json"))
            #expect(try #require(try await organizer.next()).headers["code"] == "request.invalidFields")

            // Exactly 4,000 scalars fit; the session is still open after every refusal.
            try await Self.post(organizer, to: open, text: String(repeating: "я", count: 4000), id: "long", receipt: "ok")
            #expect(try #require(try await organizer.next()).headers["receipt-id"] == "ok")
            for (user, status) in [(cy, 409), (ann, 200)] {
                #expect(try await server.send(.get, "/api/v1/meetings/\(open)/messages", token: user.token).status == status)
            }
            #expect(try await server.send(.get, "/api/v1/meetings/\(closed)/messages", token: cy.token).status == 404)
            for client in [organizer, outsider] { await client.close() }
        }
    }

    @Test func concurrentSendersGetOneGaplessSequence() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Self.meeting(server, by: ann)
            var senders: [StompClient] = []
            for _ in 0..<8 {
                let user = try await server.signedInUser()
                try await Self.join(server, user, meeting)
                senders.append(try await Rooms.connect(port: port, token: user.token))
            }
            let listener = try await Rooms.connect(port: port, token: ann.token)
            #expect(try await Rooms.subscribe(listener, to: "/topic/meetings.\(meeting).chat").command == .receipt)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, sender) in senders.enumerated() {
                    group.addTask {
                        for round in 0..<8 {
                            try await Self.post(sender, to: meeting, text: "\(index)/\(round)", id: "\(index)-\(round)", receipt: "\(round)")
                        }
                        let receipts = try await Self.frames(from: sender) { $0.count == 8 }
                        #expect(receipts.allSatisfy { $0.command == .receipt })
                    }
                }
                try await group.waitForAll()
            }
            let heard = try await Self.frames(from: listener) { $0.count == 64 }
            // After the eight notes of who joined.
            #expect(heard.compactMap { $0.headers["seq"].flatMap(Int.init) } == Array(9...72))
            let texts = Set(heard.compactMap { Self.json($0)["text"] as? String })
            #expect(texts.count == 64)
            for client in senders + [listener] { await client.close() }
        }
    }

    /// A client re-sends freely after a lost connection: a repeat is answered with a RECEIPT,
    /// not refused as too fast, and does not use up the posts the rate limit allows, while the
    /// re-sends' own allowance lasts (five times the limit's), so a loop of them is capped too.
    /// The clock stands still: the limit refills nothing during the test.
    @Test func aRepeatIsNeitherChargedNorRefusedByTheRateLimit() async throws {
        let start = Date()
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(now: { start }, stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Self.meeting(server, by: ann)
            var client = try await Rooms.connect(port: port, token: ann.token)
            func post(_ id: String, text: String? = nil) async throws -> StompFrame {
                try await Self.post(client, to: meeting, text: text ?? id, id: id, receipt: "r-\(id)")
                return try #require(try await client.next())
            }
            #expect(try await post("first").command == .receipt)
            // Twenty repeats would take every post of the burst of ten if they were charged.
            for index in 1...20 {
                let answer = try await post("first")
                #expect(answer.command == .receipt, "repeat \(index): \(answer.headers["code"] ?? "")")
            }
            // The nine posts left of the burst, then the limit.
            for index in 1...9 {
                let answer = try await post("m\(index)")
                #expect(answer.command == .receipt, "post \(index) of the burst: \(answer.headers["code"] ?? "")")
            }
            #expect(try await post("m10").headers["code"] == "chatMessage.rateLimited")
            // Past the limit, after a reconnect: the repeats of stored posts get their RECEIPT
            // and store nothing.
            await client.close()
            client = try await Rooms.connect(port: port, token: ann.token)
            for id in ["first", "m1", "m9"] {
                let answer = try await post(id, text: "again")
                #expect(answer.headers["receipt-id"] == "r-\(id)", "re-send of \(id): \(answer.headers["code"] ?? "")")
            }
            let history = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages?limit=200", token: ann.token)
            let texts = (history.json["items"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(texts.filter { $0 == "first" }.count == 1 && !texts.contains("again"))
            // The allowance of 50 re-sends: 20 + 1 (the refused m10) + 3 taken, 26 left.
            for index in 1...26 {
                let answer = try await post("first")
                #expect(answer.command == .receipt, "re-send \(index) of the allowance: \(answer.headers["code"] ?? "")")
            }
            #expect(try await post("first").headers["code"] == "chatMessage.rateLimited")
            await client.close()
        }
    }

    @Test func historyPagesBackwardsAndACancelledMeetingsRoomIsReadOnly() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Self.meeting(server, by: ann)
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            for index in 1...5 {
                try await Self.post(organizer, to: meeting, text: "m\(index)", id: "\(index)", receipt: "\(index)")
                #expect(try #require(try await organizer.next()).command == .receipt)
            }
            // Pages of two, then of five: a last page that is exactly full has no next page.
            for (limit, pages) in [(2, 3), (5, 1)] {
                var seqs: [Int] = []
                var cursor: String?
                var requests = 0
                repeat {
                    let page = try await server.send(
                        .get, "/api/v1/meetings/\(meeting)/messages?limit=\(limit)" + (cursor.map { "&beforeSeq=\($0)" } ?? ""), token: ann.token)
                    seqs += (page.json["items"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
                    cursor = page.string("nextCursor")
                    requests += 1
                } while cursor != nil && requests < 10
                #expect(seqs == [5, 4, 3, 2, 1] && requests == pages, "limit \(limit): \(requests) requests")
            }
            // One 422 names every bad parameter, as the conventions say.
            for (query, problems) in [("limit=0", ["limit: field.outOfRange"]), ("limit=abc", ["limit: field.wrongType"]),
                                      ("beforeSeq=0&limit=x", ["beforeSeq: field.outOfRange", "limit: field.wrongType"]),
                                      ("beforeSeq=0&limit=201", ["beforeSeq: field.outOfRange", "limit: field.outOfRange"]),
                                      ("beforeSeq=soon", ["beforeSeq: field.wrongType"])] {
                let refused = try await server.send(.get, "/api/v1/meetings/\(meeting)/messages?\(query)", token: ann.token)
                let named = (refused.json["errors"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? ""): \($0["code"] ?? "")" }
                #expect(refused.status == 422 && named == problems, "\(query): \(refused.text)")
            }

            // A burst past the rate limit is refused with the delay to wait. The limit refills one
            // post a second, so on a loaded machine the burst may take more than ten posts.
            var limited: StompFrame?
            for index in 6...200 where limited == nil {
                try await Self.post(organizer, to: meeting, text: "m\(index)", id: "\(index)", receipt: "\(index)")
                let answer = try #require(try await organizer.next())
                if answer.command != .receipt { limited = answer }
            }
            #expect(limited?.headers["code"] == "chatMessage.rateLimited" && limited?.text.contains("retry after") == true)

            #expect(try await server.send(.delete, "/api/v1/meetings/\(meeting)", token: ann.token).status == 200)
            try await Task.sleep(for: .seconds(1))  // a token for one more post
            try await Self.post(organizer, to: meeting, text: "after", id: "after", receipt: "after")
            #expect(try #require(try await organizer.next()).headers["code"] == "chatRoom.readOnly")
            #expect(try await server.send(.get, "/api/v1/meetings/\(meeting)/messages", token: ann.token).status == 200)
            await organizer.close()
        }
    }
}
