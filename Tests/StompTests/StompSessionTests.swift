import NIOCore
import Testing
@testable import Stomp

/// The session state machine, driven over real loopback TCP by our client. The time limit
/// turns a frame that never comes into a failure instead of a hung run; it times nothing.
@Suite(.timeLimit(.minutes(1))) struct StompSessionTests {
    @Test(arguments: [("1.0", "1.0"), ("1.1", "1.1"), ("1.2", "1.2"), ("1.0,1.1", "1.1"), ("1.1,1.2,2.0", "1.2")])
    func negotiatesTheHighestCommonVersion(offered: String, chosen: String) async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client(version: offered)
        #expect(client.connected.headers["version"] == chosen)
        #expect(client.connected.headers["session"] != nil)
        #expect(client.connected.headers["server"] == "meetupd")
        #expect((client.connected.headers["heart-beat"] != nil) == (chosen != "1.0"))
        await client.close()
        await fixture.stop()
    }

    @Test func aConnectWithoutAcceptVersionIsStomp10() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await StompClient.connect(host: "127.0.0.1", port: fixture.port, headers: ["passcode": "token-a"], timeout: BrokerFixture.patience)
        #expect(client.version == .v1_0)
        await fixture.stop()
    }

    @Test func noCommonVersionGetsAnErrorListingOurs() async throws {
        let fixture = try await BrokerFixture.start()
        await #expect {
            _ = try await fixture.client(version: "2.0,3.0")
        } throws: { error in
            guard case StompClient.ConnectError.refused(let frame) = error else { return false }
            return frame.headers["version"] == "1.2,1.1,1.0" && frame.headers["message"]?.contains("1.2,1.1,1.0") == true
        }
        await fixture.stop()
    }

    @Test func aBadTokenGetsAnErrorThenTheClose() async throws {
        let fixture = try await BrokerFixture.start()
        await #expect {
            _ = try await StompClient.connect(host: "127.0.0.1", port: fixture.port,
                                              headers: ["accept-version": "1.2", "Authorization": "Bearer nope"], timeout: BrokerFixture.patience)
        } throws: { error in
            guard case StompClient.ConnectError.refused(let frame) = error else { return false }
            return frame.command == .error && frame.headers["message"] == "bad token"
        }
        await fixture.stop()
    }

    @Test func bearerHeaderAuthenticates() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await StompClient.connect(host: "127.0.0.1", port: fixture.port,
                                                   headers: ["accept-version": "1.2", "Authorization": "Bearer token-bob"], timeout: BrokerFixture.patience)
        #expect(client.connected.headers["user-name"] == "bob")
        await fixture.stop()
    }

    @Test func framesBeforeConnectAreRefused() async throws {
        let fixture = try await BrokerFixture.start()
        await #expect {
            _ = try await StompClient.connect(host: "127.0.0.1", port: fixture.port, headers: ["x": "y"], timeout: BrokerFixture.patience)
        } throws: { _ in true }
        let raw = try await StompClient.connectRaw(port: fixture.port, "SEND\ndestination:/topic/a\nreceipt:9\n\n\0")
        #expect(raw.hasPrefix("ERROR\n"))
        #expect(raw.contains("message:expected CONNECT or STOMP, got SEND\n"))
        #expect(raw.contains("receipt-id:9\n"))
        await fixture.stop()
    }

    @Test func subscribeSendReceiveWithReceipts() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await alice.subscribe("/topic/room")
        try await bob.sendAwaitingReceipt(StompFrame(.send, headers: ["destination": "/topic/room", "content-type": "text/plain", "seq": "1"], text: "hello"))
        let message = try #require(try await alice.next())
        #expect(message.command == .message)
        #expect(message.headers["destination"] == "/topic/room")
        #expect(message.headers["subscription"] == "sub-0")
        #expect(message.headers["message-id"] != nil)
        #expect(message.headers["content-type"] == "text/plain")
        #expect(message.headers["seq"] == "1")
        #expect(message.headers["receipt"] == nil)
        #expect(message.text == "hello")
        await fixture.stop()
    }

    @Test func binaryBodiesWithNULSurvive() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.subscribe("/topic/bin")
        let bytes: [UInt8] = [0, 1, 2, 0, 255, 0]
        try await alice.send(StompFrame(.send, headers: ["destination": "/topic/bin"], body: ByteBuffer(bytes: bytes)))
        let message = try #require(try await alice.next())
        #expect(Array(message.body.readableBytesView) == bytes)
        #expect(message.headers["content-length"] == "6")
        await fixture.stop()
    }

    @Test func unsubscribeStopsDelivery() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.subscribe("/topic/a", id: "1")
        try await alice.subscribe("/topic/b", id: "2")
        try await alice.sendAwaitingReceipt(StompFrame(.unsubscribe, headers: ["id": "1"]))
        try await alice.send(StompFrame(.send, headers: ["destination": "/topic/a"], text: "gone"))
        try await alice.send(StompFrame(.send, headers: ["destination": "/topic/b"], text: "kept"))
        #expect(try await alice.next()?.text == "kept")
        await fixture.stop()
    }

    @Test func duplicateSubscriptionIdIsAnError() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.subscribe("/topic/a", id: "1")
        try await alice.send(StompFrame(.subscribe, headers: ["id": "1", "destination": "/topic/b"]))
        let error = try #require(try await alice.next())
        #expect(error.headers["message"] == "subscription id 1 is already in use")
        #expect(try await alice.next() == nil)
        await fixture.stop()
    }

    @Test(arguments: ["1.0", "1.1", "1.2"])
    func missingRequiredHeaderIsAnErrorWithReceiptId(version: String) async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client(version: version)
        try await client.send(StompFrame(.send, headers: ["receipt": "42"], text: "x"))
        let error = try #require(try await client.next())
        #expect(error.command == .error)
        #expect(error.headers["message"] == "SEND requires the destination header")
        #expect(error.headers["receipt-id"] == "42")
        #expect(try await client.next() == nil)
        await fixture.stop()
    }

    @Test func limitViolationsNameTheLimit() async throws {
        let fixture = try await BrokerFixture.start { $0.limits = StompLimits(maxHeaderLength: 100) }
        let client = try await fixture.client()
        try await client.send(bytes: ByteBuffer(string: "SEND\nx:" + String(repeating: "y", count: 200)))
        let error = try #require(try await client.next())
        #expect(error.headers["message"] == "header too long (limit 100 bytes)")
        #expect(try await client.next() == nil)
        await fixture.stop()
    }

    @Test func disconnectWithReceiptThenClose() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        try await client.send(StompFrame(.disconnect, headers: ["receipt": "bye"]))
        let receipt = try #require(try await client.next())
        #expect(receipt.command == .receipt && receipt.headers["receipt-id"] == "bye")
        #expect(try await client.next() == nil)
        await fixture.stop()
    }

    @Test func receiptForEveryFrameKind() async throws {
        let fixture = try await BrokerFixture.start()
        let client = try await fixture.client()
        let frames: [StompFrame] = [
            StompFrame(.subscribe, headers: ["id": "1", "destination": "/topic/a"]),
            StompFrame(.begin, headers: ["transaction": "t"]),
            StompFrame(.send, headers: ["destination": "/topic/b", "transaction": "t"]),
            StompFrame(.commit, headers: ["transaction": "t"]),
            StompFrame(.begin, headers: ["transaction": "u"]),
            StompFrame(.abort, headers: ["transaction": "u"]),
            StompFrame(.unsubscribe, headers: ["id": "1"]),
        ]
        for (index, frame) in frames.enumerated() {
            #expect(try await client.sendAwaitingReceipt(frame, receipt: "r\(index)").isEmpty)
        }
        await fixture.stop()
    }
}

extension StompClient {
    /// Opens a connection, writes `text` raw and returns everything the server sent until it closed.
    static func connectRaw(port: Int, _ text: String) async throws -> String {
        let socket = try await RawConnection.open(port: port)
        try await socket.write(text)
        return try await socket.readUntilClosed()
    }
}
