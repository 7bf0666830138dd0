import NIOCore
import WebSocket

/// Our WebSocket carries STOMP in complete messages: one or several frames per message (a frame
/// may also span messages), text or binary. Each outbound frame is one message, text when its
/// bytes are UTF-8, as browser and phone clients expect, binary otherwise.
enum StompWebSocketTransport: StompTransport {
    static func bytes(of message: WebSocketMessage) -> ByteBuffer { message.data }

    static func message(carrying bytes: ByteBuffer) -> WebSocketMessage {
        WebSocketMessage(kind: isUTF8(bytes) ? .text : .binary, data: bytes)
    }

    /// ASCII is checked byte by byte; anything else is validated as UTF-8 in full.
    private static func isUTF8(_ bytes: ByteBuffer) -> Bool {
        let view = bytes.readableBytesView
        guard view.contains(where: { $0 >= 0x80 }) else { return true }
        return String(validating: view, as: UTF8.self) != nil
    }
}

extension StompBroker {
    /// The WebSocket subprotocols, in the server's order of preference (the highest version first).
    public static let webSocketSubprotocols = StompVersion.allCases.reversed().map(\.webSocketSubprotocol)

    /// Makes the channel, already upgraded by our WebSocket layer, a STOMP session of this broker.
    /// `transportToken` is the bearer token the upgrade request carried, if any.
    public func addWebSocketSession(to pipeline: ChannelPipeline.SynchronousOperations, transportToken: String?) throws {
        try pipeline.addHandler(StompTransportHandler<StompWebSocketTransport>(broker: self, transportToken: transportToken))
    }
}
