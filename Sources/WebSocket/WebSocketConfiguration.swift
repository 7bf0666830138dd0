import NIOCore

/// Limits, timeouts and negotiation choices of the server side of WebSocket.
public struct WebSocketConfiguration: Sendable {
    /// The largest message (and frame) accepted, after inflation; bigger ones close with 1009.
    public var maximumMessageSize: Int = 16 * 1024 * 1024
    /// Subprotocols the server speaks, most preferred first; the first one the client also
    /// offers is chosen.
    public var subprotocols: [String] = []
    /// When set, a request whose `Origin` is not listed is refused with 403. Clients that send
    /// no `Origin` (apps, not browsers) are not affected.
    public var allowedOrigins: Set<String>?
    /// permessage-deflate settings, or `nil` to never negotiate compression.
    public var perMessageDeflate: PerMessageDeflateConfiguration? = PerMessageDeflateConfiguration()
    /// How long to wait for the peer's close frame after sending ours before dropping TCP.
    public var closeTimeout: TimeAmount = .seconds(5)
    /// When set, a connection quiet for this long gets a ping.
    public var idlePingInterval: TimeAmount?
    /// How long a pinged peer has to send anything before it is considered dead and dropped.
    public var deadPeerTimeout: TimeAmount = .seconds(10)

    /// The defaults: 16 MiB messages, compression offered, no idle ping.
    public init() {}
}

/// Sent down the pipeline (`triggerUserOutboundEvent`) by the application to change the largest
/// message it accepts from now on, never above the configuration's ``WebSocketConfiguration/maximumMessageSize``:
/// e.g. a protocol that expects one small greeting before anything else.
public struct WebSocketMessageSizeLimit: Sendable {
    /// The largest message, in bytes after inflation.
    public var bytes: Int

    /// A limit of `bytes`.
    public init(_ bytes: Int) {
        self.bytes = bytes
    }
}
