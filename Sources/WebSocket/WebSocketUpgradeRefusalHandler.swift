import NIOCore
import NIOHTTP1

/// Answers a refused WebSocket upgrade with its HTTP status, then closes the connection.
///
/// Goes right after NIO's typed upgrade handler: the upgrader's refusal arrives here as an
/// error, then the request itself, which this handler answers instead of passing it on.
/// Requests that were not refused pass through, and the handler removes itself.
public final class WebSocketUpgradeRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias InboundOut = HTTPServerRequestPart
    public typealias OutboundOut = HTTPServerResponsePart

    private var refusal: WebSocketUpgradeRefusal?

    /// Creates the handler.
    public init() {}

    /// Keeps a refusal for the request that follows; passes other errors on.
    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let refusal = error as? WebSocketUpgradeRefusal else {
            context.fireErrorCaught(error)
            return
        }
        self.refusal = refusal
    }

    /// Answers the refused request, or steps aside for one that was not.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let refusal = self.refusal else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
            return
        }
        guard case .end = Self.unwrapInboundIn(data) else { return }
        var head = HTTPResponseHead(version: .http1_1, status: refusal.status, headers: refusal.headers)
        let body = ByteBuffer(string: refusal.reason + "\n")
        head.headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
