/// Why the server fails a WebSocket connection, and the close code it sends for it.
@_spi(Tooling) public struct WebSocketProtocolError: Error, Hashable, Sendable {
    /// The code sent in the server's close frame.
    public var code: WebSocketCloseCode
    /// The reason sent in the close frame: short, for the peer's developer.
    public var reason: String

    static func protocolError(_ reason: String) -> Self { Self(code: .protocolError, reason: reason) }
    static let invalidUTF8 = Self(code: .invalidFramePayloadData, reason: "invalid UTF-8 in text")
    static let messageTooBig = Self(code: .messageTooBig, reason: "message too big")
}
