import NIOCore
import NIOEmbedded
import Testing
@_spi(Tooling) @testable import WebSocket
@testable import Stomp

/// A fan-out MESSAGE is framed once for all WebSocket recipients of a loop: each gets the same
/// bytes as a TCP recipient, compressed where its connection compresses.
@Suite struct StompSharedFrameTests {
    struct AllowAll: StompAuthorizer {
        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }
    }

    private static let subscribe = "CONNECT\naccept-version:1.2\npasscode:token-a\n\n\0SUBSCRIBE\nid:0\ndestination:/topic/t\n\n\0"

    /// A client's text frame, masked with a zero key (so the payload reads as it is).
    private func clientText(_ text: String) -> ByteBuffer {
        let payload = Array(text.utf8)
        var buffer = ByteBuffer(bytes: [0x81])
        if payload.count < 126 {
            buffer.writeInteger(UInt8(0x80 | payload.count))
        } else {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payload.count))
        }
        buffer.writeBytes([0, 0, 0, 0] + payload)
        return buffer
    }

    /// The payloads of the server frames written since the last call, and whether each was compressed.
    private func serverFrames(_ channel: EmbeddedChannel) throws -> [(payload: ByteBuffer, compressed: Bool)] {
        var all = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        var frames: [(ByteBuffer, Bool)] = []
        while let first = all.readInteger(as: UInt8.self), let second = all.readInteger(as: UInt8.self) {
            var length = Int(second & 0x7F)
            if length == 126 { length = Int(all.readInteger(as: UInt16.self) ?? 0) }
            let payload = all.readSlice(length: length)
            frames.append((try #require(payload), first & 0x40 != 0))
        }
        return frames
    }

    @Test func webSocketRecipientsGetTheTCPBytesFramedOnce() throws {
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: AllowAll())
        let loop = EmbeddedEventLoop()
        let tcp = EmbeddedChannel(loop: loop)
        try tcp.pipeline.syncOperations.addHandler(StompTransportHandler<StompTCPTransport>(broker: broker, transportToken: nil))
        var webSockets: [EmbeddedChannel] = []
        for deflate in [false, true, false] {
            let channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addWebSocketLayer(perMessageDeflate: deflate)
            try broker.addWebSocketSession(to: channel.pipeline.syncOperations, transportToken: nil)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try channel.writeInbound(self.clientText(Self.subscribe))
            webSockets.append(channel)
        }
        try tcp.writeInbound(ByteBuffer(string: Self.subscribe))
        for channel in webSockets { _ = try self.serverFrames(channel) }  // CONNECTED
        while try tcp.readOutbound(as: ByteBuffer.self) != nil {}

        let body = String(repeating: "в кафе о сьомій ", count: 20)
        try tcp.writeInbound(ByteBuffer(string: "SEND\ndestination:/topic/t\n\n\(body)\0"))
        loop.run()
        let expected = try #require(try tcp.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: expected).hasPrefix("MESSAGE\nsubscription:0\n"))

        for (index, channel) in webSockets.enumerated() {
            let frames = try self.serverFrames(channel)
            try #require(frames.count == 1)
            var payload = frames[0].payload
            if index == 1 {
                #expect(frames[0].compressed)
                var inflated = ByteBuffer()
                try PerMessageDeflate(parameters: .init(), configuration: .init())
                    .inflate(payload, isFinal: true, into: &inflated, limit: 1 << 20)
                payload = inflated
            }
            #expect(payload == expected)
        }
    }
}
