import Foundation
import GRDB
import MeetCore
import Stomp
import Testing

/// A node ends the rooms of a member whose membership another process ended, from the change
/// log alone: the departure another node announces through the relay can be lost (its link to
/// RabbitMQ was down), and nothing else would end them.
@Suite struct ChatDepartureCheckTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    /// The membership goes by a write of another connection that records no domain event, so
    /// this server's event reader makes no departure of it: only the check can end the rooms.
    @Test func aMembershipEndedElsewhereEndsItsRoomsOnEveryDevice() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let (ann, bob) = (try await server.signedInUser(), try await server.signedInUser())
            let (left, kept) = (try await Chat.meeting(server, by: ann), try await Chat.meeting(server, by: ann))
            for meeting in [left, kept] { try await Chat.join(server, bob, meeting) }
            let ended: Set = ["/topic/meetings.\(left).chat", "/topic/meetings.\(left).typing"]
            var devices: [StompClient] = []
            for _ in 0..<2 {
                let device = try await Rooms.connect(port: port, token: bob.token)
                for topic in ended.sorted() + ["/topic/meetings.\(kept).chat"] {
                    #expect(try await Rooms.subscribe(device, to: topic).command == .receipt)
                }
                devices.append(device)
            }

            let other = try server.otherConnection()
            defer { try? other.close() }
            try await other.write { db in
                try db.execute(sql: "DELETE FROM meetingMember WHERE meetingId = ? AND userId = ?", arguments: [left, bob.id])
            }
            let isRefusal = { (frame: StompFrame) in frame.headers["destination"] == "/user/queue/errors" }
            for device in devices {
                let told = try await Chat.frames(from: device) { $0.filter(isRefusal).count == 2 }.filter(isRefusal)
                #expect(Set(told.compactMap { Chat.json($0)["destination"] as? String }) == ended)
                #expect(told.allSatisfy { $0.headers["code"] == "meeting.notMember" })
            }

            // The room bob still belongs to goes on.
            let organizer = try await Rooms.connect(port: port, token: ann.token)
            try await Chat.post(organizer, to: kept, text: "still here", id: "k1")
            for device in devices {
                let heard = try await Chat.frames(from: device) { $0.last?.command == .message }
                #expect(heard.last?.headers["destination"] == "/topic/meetings.\(kept).chat")
                await device.close()
            }
            await organizer.close()
        }
    }
}
