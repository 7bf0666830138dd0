import NIOCore

/// One complete WebSocket message, as the application sees it.
///
/// Fragmentation, masking, control frames, UTF-8 validation and permessage-deflate all stay
/// below this type: a `.text` message that reaches the application is valid UTF-8.
public struct WebSocketMessage: Sendable, Hashable {
    /// Whether the message is text or binary (RFC 6455 §5.6).
    public enum Kind: Sendable, Hashable {
        /// UTF-8 text.
        case text
        /// Arbitrary bytes.
        case binary
    }

    // The payload comes first: a ByteBuffer takes 23 bytes and the one-byte kind then fits in
    // its tail padding, so the message is 24 bytes and sits inline in `NIOAny`'s existential
    // buffer. In the other order it takes 32 bytes and every pipeline write boxes it on the heap.

    /// The whole payload, uncompressed and unmasked.
    public var data: ByteBuffer
    /// Whether the message is text or binary.
    public var kind: Kind

    /// Creates a message of the given kind.
    public init(kind: Kind, data: ByteBuffer) {
        self.kind = kind
        self.data = data
    }

    /// Whether `bytes` are valid UTF-8, so that they may travel as a text message. Checked in
    /// place, without making a `String` of them.
    public static func isText(_ bytes: ByteBuffer) -> Bool {
        var validator = UTF8Validator()
        return bytes.withUnsafeReadableBytes { validator.validate($0) } && validator.isComplete
    }

    /// Creates a text message from a string.
    public static func text(_ string: String) -> WebSocketMessage {
        WebSocketMessage(kind: .text, data: ByteBuffer(string: string))
    }
}

/// Outbound user event that starts the closing handshake with the given code and reason.
///
/// Send it with `context.triggerUserOutboundEvent(_:promise:)`; the promise completes once the
/// close frame is written. `context.close()` does the same with `.normalClosure`.
public struct WebSocketCloseRequest: Sendable, Hashable {
    /// The status code sent to the peer.
    public var code: WebSocketCloseCode
    /// A short human-readable reason (at most 123 bytes of UTF-8; longer reasons are cut).
    public var reason: String

    /// Creates a close request.
    public init(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}

/// Inbound user event fired exactly once when the WebSocket session ends.
///
/// `code` is the peer's status code when the peer closed, the code the server sent when it
/// closed (protocol error, close request, shutdown), or `.abnormalClosure` when the TCP
/// connection went away without a closing handshake.
public struct WebSocketClosed: Sendable, Hashable {
    /// Why the session ended.
    public var code: WebSocketCloseCode
    /// The reason text that accompanied the code, if any.
    public var reason: String

    /// Creates the event.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}
