import NIOCore
import NIOConcurrencyHelpers
import NIOEmbedded
import Testing
@_spi(Tooling) @testable import WebSocket

/// Echoes every message and records what the WebSocket layer tells the application.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketMessage
    typealias OutboundOut = WebSocketMessage

    var received: [WebSocketMessage] = []
    var closedEvents: [WebSocketClosed] = []
    var writabilityChanges = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.received.append(Self.unwrapInboundIn(data))
        context.writeAndFlush(data, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? WebSocketClosed { self.closedEvents.append(closed) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.writabilityChanges += 1
    }
}

/// An upgraded connection on an EmbeddedChannel, driven with client frames.
final class Connection {
    let channel = EmbeddedChannel()
    let echo = EchoHandler()

    init(_ configure: (inout WebSocketConfiguration) -> Void = { _ in }, deflate: PerMessageDeflateParameters? = nil) throws {
        var configuration = WebSocketConfiguration()
        configure(&configuration)
        try self.channel.pipeline.syncOperations.addHandler(
            WebSocketConnectionHandler(configuration: configuration, perMessageDeflate: deflate)
        )
        try self.channel.pipeline.syncOperations.addHandler(self.echo)
        try self.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    func send(_ frames: ClientFrame...) throws {
        for frame in frames { try self.channel.writeInbound(frame.buffer) }
    }

    /// Everything the server wrote since the last call, as frames.
    func written() throws -> [ServerFrame] {
        var all = ByteBuffer()
        while var chunk = try self.channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        return ServerFrame.parseAll(all)
    }

    var isOpen: Bool { self.channel.isActive }
}

@Suite struct ConnectionHandlerTests {
    @Test func fragmentedTextWithInterleavedPingIsReassembled() throws {
        let connection = try Connection()
        try connection.send(.text("Hel", fin: false), .ping([1, 2, 3]), .continuation(Array("lo ".utf8), fin: false), .continuation(Array("🎉".utf8)))
        #expect(connection.echo.received == [.text("Hello 🎉")])
        let frames = try connection.written()
        #expect(frames.map(\.opcode) == [0xA, 0x1])
        #expect(frames[0].payload == [1, 2, 3], "pong carries the ping's payload")
        #expect(frames[1].payload == Array("Hello 🎉".utf8))
    }

    @Test func unsolicitedPongIsIgnored() throws {
        let connection = try Connection()
        try connection.send(.pong([9]))
        #expect(try connection.written().isEmpty)
        #expect(connection.isOpen)
    }

    @Test func largeBinaryEchoesInOneFrame() throws {
        let connection = try Connection()
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        try connection.send(.binary(payload))
        let frames = try connection.written()
        #expect(frames == [ServerFrame(fin: true, rsv1: false, opcode: 0x2, payload: payload)])
    }

    @Test func invalidUTF8FailsFastWith1007() throws {
        let connection = try Connection()
        try connection.send(.text("ok", fin: false), .continuation([0xCE, 0xBA, 0xED, 0xA0], fin: false))
        // The message never ended, yet the connection is already being closed.
        #expect(try connection.written().map(\.closeCode) == [1007])
        #expect(connection.echo.received.isEmpty)
    }

    @Test func textEndingMidCharacterIs1007() throws {
        let connection = try Connection()
        try connection.send(ClientFrame(opcode: 0x1, payload: [0x61, 0xE2, 0x82]))
        #expect(try connection.written().map(\.closeCode) == [1007])
    }

    @Test func messageOverTheLimitAcrossFragmentsIs1009() throws {
        let connection = try Connection { $0.maximumMessageSize = 100 }
        try connection.send(.binary(.init(repeating: 1, count: 60), fin: false), .continuation(.init(repeating: 2, count: 60)))
        #expect(try connection.written().map(\.closeCode) == [1009])
    }

    @Test func frameOverTheLimitIs1009() throws {
        let connection = try Connection { $0.maximumMessageSize = 100 }
        try connection.send(.binary(.init(repeating: 1, count: 101)))
        #expect(try connection.written().map(\.closeCode) == [1009])
    }

    @Test func continuationWithoutMessageAndNewMessageMidwayAre1002() throws {
        let orphan = try Connection()
        try orphan.send(.continuation([1]))
        #expect(try orphan.written().map(\.closeCode) == [1002])
        let interrupted = try Connection()
        try interrupted.send(.text("a", fin: false), .text("b"))
        #expect(try interrupted.written().map(\.closeCode) == [1002])
    }

    @Test func peerCloseIsEchoedThenTCPCloses() throws {
        let connection = try Connection()
        try connection.send(.close(code: 4001, reason: Array("bye".utf8)))
        #expect(try connection.written().map(\.closeCode) == [4001])
        #expect(!connection.isOpen)
        #expect(connection.echo.closedEvents == [WebSocketClosed(code: 4001, reason: "bye")])
    }

    @Test func emptyCloseIsAnsweredWithAnEmptyClose() throws {
        let connection = try Connection()
        try connection.send(.close())
        #expect(try connection.written() == [ServerFrame(fin: true, rsv1: false, opcode: 0x8, payload: [])])
        #expect(connection.echo.closedEvents.map(\.code) == [.noStatusReceived])
    }

    @Test(arguments: [[0x03], [0x03, 0xED], [0x03, 0xE8, 0xFF]] as [[UInt8]])
    func badClosePayloadsAre1002(payload: [UInt8]) throws {
        let connection = try Connection()
        try connection.send(ClientFrame(opcode: 0x8, payload: payload))
        #expect(try connection.written().map(\.closeCode) == [1002])
    }

    @Test func closeRequestWaitsForThePeerThenCloses() throws {
        let connection = try Connection()
        connection.channel.pipeline.triggerUserOutboundEvent(WebSocketCloseRequest(code: 4000, reason: "done"), promise: nil)
        let frames = try connection.written()
        #expect(frames.map(\.closeCode) == [4000])
        #expect(frames[0].payload.dropFirst(2) == Array("done".utf8)[...])
        #expect(connection.isOpen)
        try connection.send(.text("late data is dropped"))
        #expect(connection.echo.received.isEmpty)
        try connection.send(.close(code: 4000))
        #expect(!connection.isOpen)
        #expect(connection.echo.closedEvents == [WebSocketClosed(code: 4000, reason: "done")])
    }

    @Test func closeTimeoutDropsAPeerThatNeverAnswers() throws {
        let connection = try Connection { $0.closeTimeout = .seconds(3) }
        connection.channel.pipeline.triggerUserOutboundEvent(WebSocketCloseRequest(code: .goingAway), promise: nil)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(connection.isOpen)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!connection.isOpen)
        #expect(connection.echo.closedEvents.map(\.code) == [.goingAway])
    }

    @Test func channelCloseFromAboveSends1000() throws {
        let connection = try Connection()
        let closed = connection.channel.embeddedEventLoop.makePromise(of: Void.self)
        let completed = NIOLockedValueBox(false)
        closed.futureResult.whenSuccess { completed.withLockedValue { $0 = true } }
        connection.channel.pipeline.close(promise: closed)
        #expect(try connection.written().map(\.closeCode) == [1000])
        #expect(connection.isOpen, "waits for the peer's close")
        try connection.send(.close(code: 1000))
        #expect(!connection.isOpen)
        connection.channel.embeddedEventLoop.run()
        #expect(completed.withLockedValue { $0 })
    }

    @Test func writesAfterCloseAreRefused() throws {
        let connection = try Connection()
        connection.channel.pipeline.triggerUserOutboundEvent(WebSocketCloseRequest(), promise: nil)
        #expect(throws: ChannelError.outputClosed) {
            try connection.channel.writeAndFlush(WebSocketMessage.text("too late")).wait()
        }
    }

    @Test func idlePeerIsPingedAndDroppedWhenSilent() throws {
        let connection = try Connection {
            $0.idlePingInterval = .seconds(30)
            $0.deadPeerTimeout = .seconds(10)
        }
        let loop = connection.channel.embeddedEventLoop
        loop.advanceTime(by: .seconds(30))
        #expect(try connection.written().map(\.opcode) == [0x9])
        loop.advanceTime(by: .seconds(10))
        #expect(!connection.isOpen)
        #expect(connection.echo.closedEvents.map(\.code) == [.abnormalClosure])
    }

    @Test func answeringPeerStaysConnected() throws {
        let connection = try Connection {
            $0.idlePingInterval = .seconds(30)
            $0.deadPeerTimeout = .seconds(10)
        }
        let loop = connection.channel.embeddedEventLoop
        for _ in 0..<5 {
            loop.advanceTime(by: .seconds(30))
            #expect(try connection.written().map(\.opcode) == [0x9])
            try connection.send(.pong())
            loop.advanceTime(by: .seconds(10))
            #expect(connection.isOpen)
        }
    }

    @Test func droppedTCPReports1006() throws {
        let connection = try Connection()
        connection.channel.pipeline.fireChannelInactive()
        #expect(connection.echo.closedEvents.map(\.code) == [.abnormalClosure])
    }

    @Test func halfClosedPeerEndsTheCloseWait() throws {
        let connection = try Connection()
        connection.channel.pipeline.triggerUserOutboundEvent(WebSocketCloseRequest(code: .policyViolation), promise: nil)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!connection.isOpen)
        #expect(connection.echo.closedEvents.map(\.code) == [.policyViolation])
    }

    @Test func writabilityReachesTheApplication() throws {
        let connection = try Connection()
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(connection.echo.writabilityChanges == 1)
    }

    @Test func compressedMessagesAreInflatedAndRepliesCompressed() throws {
        let connection = try Connection(deflate: PerMessageDeflateParameters())
        var hello = ClientFrame(opcode: 0x1, payload: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        hello.rsv = 4
        try connection.send(hello)
        #expect(connection.echo.received == [.text("Hello")])
        #expect(try connection.written().map(\.rsv1) == [false], "5 bytes are not worth compressing")

        let long = String(repeating: "meetup chat ", count: 100)
        connection.channel.writeAndFlush(WebSocketMessage.text(long), promise: nil)
        let frame = try #require(try connection.written().first)
        #expect(frame.rsv1)
        var output = ByteBuffer()
        try PerMessageDeflate(parameters: .init(), configuration: .init())
            .inflate(ByteBuffer(bytes: frame.payload), isFinal: true, into: &output, limit: 1 << 20)
        #expect(String(buffer: output) == long)
    }
}
