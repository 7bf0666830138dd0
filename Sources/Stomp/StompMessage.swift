import NIOCore
import WebSocket

/// A message published to a destination: built once and shared, immutable, by every recipient
/// on every event loop. Each recipient needs its own `subscription` header, so the wire bytes are
/// completed per subscription by ``StompMessageEncodingCache``.
public struct StompMessage: Sendable {
    /// The destination as the subscribers named it (e.g. `/topic/meetings.1.chat`, `/user/queue/errors`).
    public let destination: String
    /// The broker-wide unique id of this message.
    public let messageId: String
    /// Application headers (e.g. `content-type`, `seq`), written after the broker's own.
    public let headers: StompHeaders
    /// The body, shared by all recipients.
    public let body: ByteBuffer

    /// Creates a message.
    public init(destination: String, messageId: String, headers: StompHeaders, body: ByteBuffer) {
        self.destination = destination
        self.messageId = messageId
        self.headers = headers
        self.body = body
    }

    /// The complete MESSAGE frame for one subscription, as a peer of `version` expects it.
    /// With an acknowledging subscription, STOMP 1.2 also needs the `ack` header (the message id).
    func encode(subscription: String, acknowledged: Bool, version: StompVersion,
                allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + destination.utf8.count + subscription.utf8.count
                                      + headers.count * 32 + body.readableBytes)
        buffer.writeStaticString("MESSAGE\n")
        StompFrameEncoder.writeHeader("subscription", subscription, version: version, escaped: true, into: &buffer)
        StompFrameEncoder.writeHeader("message-id", messageId, version: version, escaped: true, into: &buffer)
        StompFrameEncoder.writeHeader("destination", destination, version: version, escaped: true, into: &buffer)
        if acknowledged, version == .v1_2 {
            StompFrameEncoder.writeHeader("ack", messageId, version: version, escaped: true, into: &buffer)
        }
        for (name, value) in headers.pairs where !Self.brokerHeaders.contains(name) {
            StompFrameEncoder.writeHeader(name, value, version: version, escaped: true, into: &buffer)
        }
        StompFrameEncoder.finish(body: body, withLength: true, into: &buffer)
        return buffer
    }

    /// Headers the broker sets itself; a publisher's copies of them are dropped.
    private static let brokerHeaders: Set<String> = [
        "subscription", "message-id", "destination", "ack", "content-length",
        "receipt", "transaction", "login", "passcode", "Authorization",
    ]
}

/// Encodes a message once per distinct (subscription id, ack, version) among the recipients of one
/// event loop: clients name subscriptions alike (`sub-0`, ...), so most recipients share one buffer.
struct StompMessageEncodingCache {
    private struct Key: Hashable {
        var subscription: String
        var acknowledged: Bool
        var version: StompVersion
    }

    private let message: StompMessage
    private let allocator: ByteBufferAllocator
    private var encoded: [Key: ByteBuffer] = [:]

    /// Whether the frames are UTF-8 (a WebSocket sends them as text then). Their headers are
    /// Swift strings, so the body decides; it is checked once here, not once per recipient.
    private(set) lazy var isUTF8 = WebSocketMessage.isText(message.body)

    init(message: StompMessage, allocator: ByteBufferAllocator) {
        self.message = message
        self.allocator = allocator
    }

    mutating func frame(subscription: String, acknowledged: Bool, version: StompVersion) -> ByteBuffer {
        let key = Key(subscription: subscription, acknowledged: acknowledged && version == .v1_2, version: version)
        if let buffer = encoded[key] { return buffer }
        let buffer = message.encode(subscription: subscription, acknowledged: acknowledged,
                                    version: version, allocator: allocator)
        encoded[key] = buffer
        return buffer
    }
}
