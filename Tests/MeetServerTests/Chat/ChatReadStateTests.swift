import Foundation
import NIOCore
import Stomp
import Testing

/// Read markers (REST and STOMP) and the chat list `GET /me/rooms`: unread counts, roles, the
/// order by last activity and its cursor, against the real server.
@Suite struct ChatReadStateTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    static func rooms(_ server: TestServer, _ user: SignedInUser, query: String = "") async throws -> (items: [[String: Any]], next: String?) {
        let answer = try await server.send(.get, "/api/v1/me/rooms\(query)", token: user.token)
        #expect(answer.status == 200, "\(answer.text)")
        return (answer.json["items"] as? [[String: Any]] ?? [], answer.json["nextCursor"] as? String)
    }

    @Test func markersCountWhatIsUnreadAndTheListFollowsActivity() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let hike = try await Chat.meeting(server, by: ann, ["title": "Hike"])
            let dinner = try await Chat.meeting(server, by: bob, ["title": "Dinner", "visibility": "private", "inviteeIds": [ann.id]])
            let empty = try await Chat.meeting(server, by: ann, ["title": "Quiet"])
            // Seq 1 of each room is the note of the join.
            try await Chat.join(server, bob, hike)
            try await Chat.join(server, ann, dinner)
            let annClient = try await Rooms.connect(port: port, token: ann.token)
            let bobClient = try await Rooms.connect(port: port, token: bob.token)
            for index in 1...3 {
                try await Chat.post(bobClient, to: hike, text: "hike \(index)", id: "h\(index)", receipt: "r")
                _ = try await bobClient.next()
            }
            try await Chat.post(annClient, to: dinner, text: "mine", id: "d1", receipt: "r")
            _ = try await annClient.next()

            // Ann's own message and join are not unread, Bob's are; the room with the newest message
            // comes first, the room without any after those that have some.
            let list = try await Self.rooms(server, ann).items
            #expect(list.compactMap { $0["meetingId"] as? String } == [dinner, hike, empty])
            #expect(list.compactMap { $0["unreadCount"] as? Int } == [0, 4, 0])
            #expect(list.compactMap { $0["role"] as? String } == ["member", "organizer", "organizer"])
            #expect(list.compactMap { $0["title"] as? String } == ["Dinner", "Hike", "Quiet"])
            #expect(list[0]["kind"] as? String == "meeting" && list[0]["id"] as? String == "meeting:\(dinner)")
            #expect((list[1]["lastMessage"] as? [String: Any])?["text"] as? String == "hike 3")
            #expect(list[1]["lastSeq"] as? Int == 4 && list[1]["lastReadSeq"] as? Int == 0)
            #expect(list[2]["lastMessage"] is NSNull && list[2]["lastSeq"] as? Int == 0)

            // REST, then STOMP with a receipt; a marker never moves back.
            let read = try await server.send(.post, "/api/v1/meetings/\(hike)/messages/read", json: ["seq": 2], token: ann.token)
            #expect(read.status == 200 && read.json["lastReadSeq"] as? Int == 2 && read.json["unreadCount"] as? Int == 2, "\(read.text)")
            let marker = try JSONSerialization.data(withJSONObject: ["seq": 4])
            try await annClient.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(hike).read", "receipt": "read"],
                                                body: ByteBuffer(data: marker)))
            #expect(try #require(try await annClient.next()).headers["receipt-id"] == "read")
            let back = try await server.send(.post, "/api/v1/meetings/\(hike)/messages/read", json: ["seq": 1], token: ann.token)
            #expect(back.json["lastReadSeq"] as? Int == 4 && back.json["unreadCount"] as? Int == 0)
            #expect(try await Self.rooms(server, ann).items.compactMap { $0["unreadCount"] as? Int } == [0, 0, 0])

            // Bad markers and outsiders are refused; the STOMP session stays.
            let beyond = try await server.send(.post, "/api/v1/meetings/\(hike)/messages/read", json: ["seq": 5], token: ann.token)
            #expect(beyond.status == 422 && beyond.text.contains("field.outOfRange"))
            #expect(try await server.send(.post, "/api/v1/meetings/\(hike)/messages/read", json: ["seq": 1], token: cy.token).status == 409)
            #expect(try await server.send(.post, "/api/v1/meetings/\(dinner)/messages/read", json: ["seq": 1], token: cy.token).status == 404)
            try await annClient.send(StompFrame(.send, headers: ["destination": "/app/meetings.\(hike).read", "receipt": "bad"], text: "{}"))
            #expect(try #require(try await annClient.next()).headers["code"] == "request.invalidFields")

            // An edit takes a seq but is no new activity: the room keeps its place in the list.
            try await ChatEditTests.change(bobClient, "edit", in: hike, ["seq": 4, "text": "hike 3, edited"], receipt: "e")
            #expect(try #require(try await bobClient.next()).headers["receipt-id"] == "e")
            let edited = try await Self.rooms(server, ann).items
            #expect(edited.compactMap { $0["meetingId"] as? String } == [dinner, hike, empty])
            #expect(edited[1]["lastSeq"] as? Int == 5 && (edited[1]["lastMessage"] as? [String: Any])?["text"] as? String == "hike 3, edited")

            // One room a page; the cursor walks the same order, then ends on the third page, which is
            // exactly full.
            var seen: [String] = []
            var cursor: String?
            var requests = 0
            repeat {
                let page = try await Self.rooms(server, ann, query: "?limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""))
                seen += page.items.compactMap { $0["meetingId"] as? String }
                cursor = page.next
                requests += 1
            } while cursor != nil && requests < 5
            #expect(seen == [dinner, hike, empty] && requests == 3)
            #expect(try await Self.rooms(server, ann, query: "?limit=3").next == nil)
            // A cursor of ours holds a time; one made by hand with `nan` or `inf` in it is refused.
            let handMade = ["nan", "inf"].map { number in
                Data("\(number)\nmeeting:\(hike)".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            }
            for query in ["?cursor=nonsense", "?limit=0", "?limit=x"] + handMade.map({ "?cursor=\($0)" }) {
                let refused = try await server.send(.get, "/api/v1/me/rooms\(query)", token: ann.token)
                #expect(refused.status == 422 && refused.text.contains("request.invalidFields"), "\(query)")
            }
            let both = try await server.send(.get, "/api/v1/me/rooms?limit=101&cursor=nonsense", token: ann.token)
            #expect((both.json["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String } == ["limit", "cursor"], "\(both.text)")
            #expect(try await Self.rooms(server, cy).items.isEmpty)
            for client in [annClient, bobClient] { await client.close() }
        }
    }
}
