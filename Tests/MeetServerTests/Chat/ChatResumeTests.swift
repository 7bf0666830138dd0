import Foundation
import NIOCore
import Stomp
import Testing

/// `SUBSCRIBE ... since-seq:N`: every stored message after N, in order, then live ones, with
/// no gap and no repeat, while others keep sending during the catch-up.
@Suite(.timeLimit(.minutes(1))) struct ChatResumeTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    @Test(arguments: 0..<6)
    func aResumingSubscriberSeesEverythingAfterItsSeqExactlyOnce(seed: Int) async throws {
        var random = SeededRandom(seed: UInt64(seed))
        let before = Int.random(in: 0...250, using: &random)
        let since = Int.random(in: 0...before, using: &random)
        let pause = Int.random(in: 0...15, using: &random)
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port, chatBurst: 1000) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            var senders: [StompClient] = []
            for _ in 0..<3 {
                let user = try await server.signedInUser()
                try await Chat.join(server, user, meeting)
                senders.append(try await Rooms.connect(port: port, token: user.token))
            }
            // The reader saw up to `since` of these, all stored, before it lost its connection.
            for index in 0..<before {
                try await Chat.post(senders[0], to: meeting, text: "before \(index)", id: "before-\(index)", receipt: "b")
            }
            _ = try await Chat.frames(from: senders[0]) { $0.count == before }
            let during = 40
            let reader = try await Rooms.connect(port: port, token: ann.token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, sender) in senders.enumerated() {
                    group.addTask {
                        for round in 0..<during {
                            try await Chat.post(sender, to: meeting, text: "\(index)/\(round)", id: "\(index)-\(round)", receipt: "r")
                        }
                        // Every post of this sender is committed once its receipts are in.
                        let answers = try await Chat.frames(from: sender) { $0.filter { $0.command == .receipt }.count == during }
                        #expect(answers.allSatisfy { $0.command == .receipt })
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(pause))
                    try await reader.send(StompFrame(.subscribe, headers: [
                        "id": "room", "destination": "/topic/meetings.\(meeting).chat", "since-seq": String(since)]))
                }
                try await group.waitForAll()
            }
            // The room starts with the three notes of who joined.
            let total = 3 + before + 3 * during
            let heard = try await Chat.frames(from: reader) { frames in
                frames.last.flatMap { $0.headers["seq"] } == String(total)
            }
            #expect(heard.compactMap { $0.headers["seq"].flatMap(Int.init) } == Array((since + 1)...total),
                    "before \(before), since \(since), pause \(pause) ms")
            for client in senders + [reader] { await client.close() }
        }
    }

    @Test func aBadSinceSeqIsRefused() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            let reader = try await Rooms.connect(port: port, token: ann.token)
            try await reader.send(StompFrame(.subscribe, headers: [
                "id": "room", "destination": "/topic/meetings.\(meeting).chat", "since-seq": "-1", "receipt": "r"]))
            let refusal = try #require(try await reader.next())
            #expect(refusal.headers["code"] == "request.invalidFields" && refusal.text.contains("since-seq"))
            await reader.close()
        }
    }

    /// A `since-seq` past the room's last message would hold the live messages up to it back
    /// unseen: refused, and the subscription ends, so the client subscribes again from a seq it
    /// has (the same id).
    @Test func aSinceSeqPastTheLastMessageIsRefusedAndEndsTheSubscription() async throws {
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(stompPort: port) { server in
            let ann = try await server.signedInUser()
            let meeting = try await Chat.meeting(server, by: ann)
            let reader = try await Rooms.connect(port: port, token: ann.token)
            for index in 1...2 {
                try await Chat.post(reader, to: meeting, text: "m\(index)", id: "m\(index)", receipt: "m\(index)")
                #expect(try #require(try await reader.next()).headers["receipt-id"] == "m\(index)")
            }
            let room = "/topic/meetings.\(meeting).chat"
            try await reader.send(StompFrame(.subscribe, headers: ["id": "room", "destination": room, "since-seq": "5", "receipt": "ahead"]))
            let refusal = try #require(try await reader.next())
            #expect(refusal.headers["code"] == "request.invalidFields" && refusal.text.contains("since-seq: field.outOfRange"),
                    "\(refusal.command) \(refusal.text)")
            // Ended: the next message is only receipted, and the id is free again.
            try await Chat.post(reader, to: meeting, text: "m3", id: "m3", receipt: "m3")
            #expect(try #require(try await reader.next()).headers["receipt-id"] == "m3")
            try await reader.send(StompFrame(.subscribe, headers: ["id": "room", "destination": room, "since-seq": "0", "receipt": "again"]))
            let frames = try await Chat.frames(from: reader) { $0.contains { $0.command == .receipt } }
            #expect(frames.compactMap { $0.headers["seq"] } == ["1", "2", "3"] && frames.last?.headers["receipt-id"] == "again")
            // An exact since-seq still goes live.
            try await reader.send(StompFrame(.subscribe, headers: ["id": "exact", "destination": room, "since-seq": "3", "receipt": "exact"]))
            #expect(try #require(try await reader.next()).headers["receipt-id"] == "exact")
            await reader.close()
        }
    }
}

/// A small deterministic generator, so that a failing seed can be run again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
