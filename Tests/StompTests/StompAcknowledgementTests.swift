import NIOCore
import Testing
@testable import Stomp

/// ACK/NACK in the three modes and transactions, per version.
@Suite(.timeLimit(.minutes(1))) struct StompAcknowledgementTests {
    /// Publishes `count` messages to `/topic/q` and returns the `ack` ids the subscriber must use.
    private func receive(_ count: Int, client: StompClient) async throws -> [String] {
        for index in 0..<count {
            try await client.send(StompFrame(.send, headers: ["destination": "/topic/q"], text: "m\(index)"))
        }
        var ids: [String] = []
        for _ in 0..<count {
            let message = try #require(try await client.next())
            ids.append(client.version == .v1_2 ? try #require(message.headers["ack"]) : try #require(message.headers["message-id"]))
        }
        return ids
    }

    private func ack(_ id: String, client: StompClient, command: StompCommand = .ack) -> StompFrame {
        switch client.version {
        case .v1_2: StompFrame(command, headers: ["id": id])
        case .v1_1: StompFrame(command, headers: ["message-id": id, "subscription": "sub-0"])
        case .v1_0: StompFrame(command, headers: ["message-id": id])
        }
    }

    @Test(arguments: ["1.0", "1.1", "1.2"])
    func clientModeAcknowledgesCumulatively(version: String) async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client(version: version)
        try await client.subscribe("/topic/q", id: "sub-0", ack: "client")
        let ids = try await receive(3, client: client)
        try await client.sendAwaitingReceipt(ack(ids[1], client: client))
        // The first message was settled with the second, so acknowledging it again is an error.
        try await client.send(ack(ids[0], client: client))
        let error = try #require(try await client.next())
        #expect(error.headers["message"] == "no unacknowledged message \(ids[0])")
        await fixture.stop()
    }

    @Test(arguments: ["1.1", "1.2"])
    func clientIndividualModeAcknowledgesOneMessage(version: String) async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client(version: version)
        try await client.subscribe("/topic/q", id: "sub-0", ack: "client-individual")
        let ids = try await receive(3, client: client)
        try await client.sendAwaitingReceipt(ack(ids[1], client: client))
        try await client.sendAwaitingReceipt(ack(ids[0], client: client, command: .nack))
        try await client.sendAwaitingReceipt(ack(ids[2], client: client))
        try await client.send(ack(ids[1], client: client))
        #expect(try await client.next()?.command == .error)
        await fixture.stop()
    }

    @Test func clientModeNackIsCumulativeToo() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.subscribe("/topic/q", id: "sub-0", ack: "client")
        let ids = try await receive(2, client: client)
        try await client.sendAwaitingReceipt(ack(ids[1], client: client, command: .nack))
        try await client.send(ack(ids[0], client: client))
        #expect(try await client.next()?.command == .error)
        await fixture.stop()
    }

    @Test func autoModeMessagesNeedNoAck() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.subscribe("/topic/q")
        try await client.send(StompFrame(.send, headers: ["destination": "/topic/q"], text: "x"))
        let message = try #require(try await client.next())
        #expect(message.headers["ack"] == nil)
        let id = try #require(message.headers["message-id"])
        try await client.send(StompFrame(.ack, headers: ["id": id]))
        #expect(try await client.next()?.headers["message"] == "no unacknowledged message \(id)")
        await fixture.stop()
    }

    @Test func clientIndividualIsNotStomp10() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client(version: "1.0")
        try await client.send(StompFrame(.subscribe, headers: ["destination": "/topic/q", "ack": "client-individual"]))
        #expect(try await client.next()?.headers["message"] == "invalid ack mode client-individual")
        await fixture.stop()
    }

    @Test func tooManyUnacknowledgedMessagesDropTheConsumer() async throws {
        let fixture = try await BrokerFixture.start { $0.maxPendingAcks = 2 }
        let client = try await fixture.client()
        try await client.subscribe("/topic/q", ack: "client")
        for _ in 0..<3 { try await client.send(StompFrame(.send, headers: ["destination": "/topic/q"], text: "x")) }
        _ = try await client.next()
        _ = try await client.next()
        #expect(try await client.next()?.headers["message"] == "slow consumer: more than 2 unacknowledged messages")
        await fixture.stop()
    }

    @Test func transactionsHoldSendsUntilCommitAndDropThemOnAbort() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.subscribe("/topic/q")
        try await client.sendAwaitingReceipt(StompFrame(.begin, headers: ["transaction": "t1"]))
        try await client.sendAwaitingReceipt(StompFrame(.send, headers: ["destination": "/topic/q", "transaction": "t1"], text: "in-tx"))
        try await client.send(StompFrame(.send, headers: ["destination": "/topic/q"], text: "outside"))
        #expect(try await client.next()?.text == "outside")
        let beforeReceipt = try await client.sendAwaitingReceipt(StompFrame(.commit, headers: ["transaction": "t1"]))
        #expect(beforeReceipt.map(\.text) == ["in-tx"])

        try await client.sendAwaitingReceipt(StompFrame(.begin, headers: ["transaction": "t2"]))
        try await client.send(StompFrame(.send, headers: ["destination": "/topic/q", "transaction": "t2"], text: "aborted"))
        try await client.sendAwaitingReceipt(StompFrame(.abort, headers: ["transaction": "t2"]))
        try await client.send(StompFrame(.send, headers: ["destination": "/topic/q"], text: "after"))
        #expect(try await client.next()?.text == "after")
        await fixture.stop()
    }

    @Test func acksInAnAbortedTransactionLeaveMessagesUnacknowledged() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.subscribe("/topic/q", ack: "client-individual")
        let ids = try await receive(1, client: client)
        try await client.sendAwaitingReceipt(StompFrame(.begin, headers: ["transaction": "t"]))
        try await client.sendAwaitingReceipt(StompFrame(.ack, headers: ["id": ids[0], "transaction": "t"]))
        try await client.sendAwaitingReceipt(StompFrame(.abort, headers: ["transaction": "t"]))
        try await client.sendAwaitingReceipt(StompFrame(.begin, headers: ["transaction": "t"]))
        try await client.sendAwaitingReceipt(StompFrame(.ack, headers: ["id": ids[0], "transaction": "t"]))
        try await client.sendAwaitingReceipt(StompFrame(.commit, headers: ["transaction": "t"]))
        await fixture.stop()
    }

    @Test func unknownTransactionIsAnError() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.send(StompFrame(.commit, headers: ["transaction": "nope"]))
        #expect(try await client.next()?.headers["message"] == "unknown transaction nope")
        await fixture.stop()
    }
}
