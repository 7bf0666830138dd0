import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@_spi(Tooling) @testable import WebSocket

/// Echoes messages back; made inside the upgrade closure so nothing non-Sendable is shared.
final class PlainEcho: ChannelInboundHandler {
    typealias InboundIn = WebSocketMessage
    typealias OutboundOut = WebSocketMessage
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

@Suite struct UpgraderTests {
    enum Outcome: Sendable, Equatable { case webSocket(subprotocol: String?), http }

    /// An HTTP/1 pipeline as the server builds it, with the upgrader and the refusal handler.
    func makeChannel() throws -> (EmbeddedChannel, EventLoopFuture<Outcome>) {
        let channel = EmbeddedChannel()
        var configuration = WebSocketConfiguration()
        configuration.subprotocols = ["v12.stomp", "v11.stomp"]
        let upgrader = WebSocketServerUpgrader<Outcome>(
            configuration: configuration,
            shouldUpgrade: { channel, request in
                let decision: WebSocketUpgradeDecision =
                    request.head.uri == "/ws"
                    ? .accept(headers: ["X-Session": "1"])
                    : .refuse(.notFound, reason: "no WebSocket endpoint here")
                return channel.eventLoop.makeSucceededFuture(decision)
            },
            upgradePipelineHandler: { channel, request in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PlainEcho())
                    return .webSocket(subprotocol: request.subprotocol)
                }
            }
        )
        var pipeline = NIOUpgradableHTTPServerPipelineConfiguration<Outcome>(
            upgradeConfiguration: .init(upgraders: [upgrader], notUpgradingCompletionHandler: {
                $0.eventLoop.makeSucceededFuture(.http)
            })
        )
        pipeline.enablePipelining = false
        pipeline.enableErrorHandling = false
        let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
        try channel.pipeline.syncOperations.addHandler(WebSocketUpgradeRefusalHandler())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, result)
    }

    func request(path: String = "/ws", _ extra: String = "") -> ByteBuffer {
        ByteBuffer(
            string: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\(extra)\r\n"
        )
    }

    func response(_ channel: EmbeddedChannel) throws -> String {
        var all = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        return String(buffer: all)
    }

    @Test func validRequestSwitchesProtocolsAndEchoes() throws {
        let (channel, result) = try self.makeChannel()
        try channel.writeInbound(
            self.request(
                "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v11.stomp, v12.stomp\r\n"
                    + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
            )
        )
        channel.embeddedEventLoop.run()
        let head = try self.response(channel).lowercased()
        #expect(head.hasPrefix("http/1.1 101 switching protocols\r\n"))
        #expect(head.contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo=\r\n"))
        #expect(head.contains("sec-websocket-protocol: v12.stomp\r\n"))
        #expect(head.contains("sec-websocket-extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n"))
        #expect(head.contains("x-session: 1\r\n"))
        #expect(try result.wait() == .webSocket(subprotocol: "v12.stomp"))

        try channel.writeInbound(ClientFrame.text("after the upgrade").buffer)
        var echoed = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { echoed.writeBuffer(&chunk) }
        #expect(ServerFrame.parseAll(echoed).map(\.payload) == [Array("after the upgrade".utf8)])
    }

    @Test func wrongVersionGets426AndTheConnectionCloses() throws {
        let (channel, result) = try self.makeChannel()
        try channel.writeInbound(self.request("Sec-WebSocket-Version: 8\r\n"))
        let response = try self.response(channel)
        #expect(response.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(response.lowercased().contains("sec-websocket-version: 13\r\n"))
        #expect(response.lowercased().contains("connection: close\r\n"))
        #expect(try result.wait() == .http)
        #expect(!channel.isActive)
    }

    @Test func applicationRefusalGetsItsStatus() throws {
        let (channel, _) = try self.makeChannel()
        try channel.writeInbound(self.request(path: "/elsewhere", "Sec-WebSocket-Version: 13\r\n"))
        let response = try self.response(channel)
        #expect(response.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(response.hasSuffix("no WebSocket endpoint here\n"))
    }

    @Test func plainHTTPPassesThrough() throws {
        let (channel, result) = try self.makeChannel()
        try channel.writeInbound(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        #expect(try result.wait() == .http)
        guard case .head(let head) = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("the request did not reach the HTTP handlers")
            return
        }
        #expect(head.uri == "/health")
        #expect(try self.response(channel).isEmpty)
    }
}
