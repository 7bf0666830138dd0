import NIOCore

/// The plain-TCP transport: bytes in, bytes out, one ``StompSession`` per connection.
final class StompChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let broker: StompBroker
    private var session: StompSession?

    init(broker: StompBroker) {
        self.broker = broker
    }

    func handlerAdded(context: ChannelHandlerContext) {
        session = StompSession(broker: broker, context: context, transportToken: nil) { NIOAny($0) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        session?.end()
        session = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session?.receive(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        session?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        session?.end()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        session?.end()
        context.close(promise: nil)
    }

    /// Holds reads while the session is still working on earlier frames: back-pressure on the peer.
    func read(context: ChannelHandlerContext) {
        if let session, session.isHoldingFrames {
            session.readPending = true
        } else {
            context.read()
        }
    }
}
