import NIOCore
import WebSocket

/// How one transport carries STOMP bytes: plain TCP carries them as they are, our WebSocket
/// wraps them in messages.
protocol StompTransport {
    /// What the transport's pipeline reads and writes.
    associatedtype Message
    /// The STOMP bytes a message carries.
    static func bytes(of message: Message) -> ByteBuffer
    /// Wraps outbound STOMP bytes (one or more whole frames). `isUTF8` is known for a fan-out
    /// MESSAGE, decided once for all its recipients; `nil` leaves it to the transport to check.
    static func message(carrying bytes: ByteBuffer, isUTF8: Bool?) -> Message
    /// Bounds the size of the messages the transport assembles from here on.
    static func limitMessages(_ context: ChannelHandlerContext, to size: Int)
    /// Where fan-out writes its shared WebSocket frames for this session (`context` is the
    /// STOMP handler's), or nil if the transport is no WebSocket.
    static func frameWriter(_ context: ChannelHandlerContext) -> WebSocketFrameWriter?
}

/// Connects a channel to a ``StompSession``: bytes in, frames out, and reads held while the
/// session holds them (``StompSession/holdsReads``: back-pressure on a peer that sends faster
/// than its frames are handled).
final class StompTransportHandler<Transport: StompTransport>: ChannelDuplexHandler {
    typealias InboundIn = Transport.Message
    typealias OutboundIn = Transport.Message
    typealias OutboundOut = Transport.Message

    private let broker: StompBroker
    private let transportToken: String?
    private var session: StompSession?

    init(broker: StompBroker, transportToken: String?) {
        self.broker = broker
        self.transportToken = transportToken
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let session = StompSession(broker: broker, context: context, transportToken: transportToken,
                                   wrap: { NIOAny(Transport.message(carrying: $0, isUTF8: $1)) },
                                   frameWriter: Transport.frameWriter(context),
                                   limitInbound: Transport.limitMessages)
        self.session = session
        session.awaitConnect()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        session?.end()
        session = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session?.receive(Transport.bytes(of: unwrapInboundIn(data)))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        session?.flush()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        session?.writabilityChanged(isWritable: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        session?.end()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        session?.end()
        context.close(promise: nil)
    }

    func read(context: ChannelHandlerContext) {
        if let session, session.holdsReads {
            session.readPending = true
        } else {
            context.read()
        }
    }
}
