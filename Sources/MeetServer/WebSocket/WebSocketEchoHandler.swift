import NIOCore
import WebSocket

/// Sends every message straight back, and stops reading while the peer does not read its
/// echoes, so a client that only writes cannot make the server buffer without bound.
final class WebSocketEchoHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketMessage
    typealias OutboundIn = WebSocketMessage
    typealias OutboundOut = WebSocketMessage

    private var readHeldBack = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            self.readHeldBack = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, self.readHeldBack {
            self.readHeldBack = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }
}
