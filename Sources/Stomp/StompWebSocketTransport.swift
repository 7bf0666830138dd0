import NIOCore
import WebSocket

/// Our WebSocket carries STOMP in complete messages: one or several frames per message (a frame
/// may also span messages), text or binary. Each outbound frame is one message, text when its
/// bytes are UTF-8, as browser and phone clients expect, binary otherwise. A fan-out MESSAGE
/// comes framed already (``WebSocketPreparedMessage``), once for all its recipients.
enum StompWebSocketTransport: StompTransport {
    static func bytes(of message: WebSocketMessage) -> ByteBuffer { message.data }

    static func message(carrying bytes: ByteBuffer, isUTF8: Bool?) -> WebSocketMessage {
        WebSocketMessage(kind: isUTF8 ?? WebSocketMessage.isText(bytes) ? .text : .binary, data: bytes)
    }

    /// Until CONNECTED a message may hold one CONNECT frame, after it one frame of the largest
    /// size the limits allow: the WebSocket layer refuses bigger ones (1009) before buffering them.
    static func limitMessages(_ context: ChannelHandlerContext, to size: Int) {
        context.triggerUserOutboundEvent(WebSocketMessageSizeLimit(size), promise: nil)
    }

    /// The STOMP handler sits right above the WebSocket layer (``StompBroker/addWebSocketSession(to:transportToken:)``),
    /// so its frames may go straight in.
    static func frameWriter(_ context: ChannelHandlerContext) -> WebSocketFrameWriter? {
        try? context.pipeline.syncOperations.webSocketFrameWriter()
    }
}

extension StompBroker {
    /// The WebSocket subprotocols, in the server's order of preference (the highest version first).
    public static let webSocketSubprotocols = StompVersion.allCases.reversed().map(\.webSocketSubprotocol)

    /// The largest WebSocket message a STOMP session needs: one frame at the broker's limits.
    public var maximumWebSocketMessageSize: Int { configuration.limits.maxFrameSize }

    /// Makes the channel, already upgraded by our WebSocket layer, a STOMP session of this broker.
    /// `transportToken` is the bearer token the upgrade request carried, if any.
    public func addWebSocketSession(to pipeline: ChannelPipeline.SynchronousOperations, transportToken: String?) throws {
        try pipeline.addHandler(StompTransportHandler<StompWebSocketTransport>(broker: self, transportToken: transportToken))
    }
}
