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

    /// Writes the complete MESSAGE frame for one subscription, as a peer of `version` expects it.
    /// With an acknowledging subscription, STOMP 1.2 also needs the `ack` header (the message id).
    func write(subscription: String, acknowledged: Bool, version: StompVersion, into buffer: inout ByteBuffer) {
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
    }

    /// Room for the frame ``write(subscription:acknowledged:version:into:)`` writes, most often enough.
    func estimatedSize(subscription: String) -> Int {
        96 + destination.utf8.count + subscription.utf8.count + headers.count * 32 + body.readableBytes
    }

    /// Headers the broker sets itself; a publisher's copies of them are dropped.
    private static let brokerHeaders: Set<String> = [
        "subscription", "message-id", "destination", "ack", "content-length",
        "receipt", "transaction", "login", "passcode", "Authorization",
    ]
}

/// Encodes a message once per distinct (subscription id, ack, version) among the recipients of one
/// event loop: clients name subscriptions alike (`sub-0`, ...), so most recipients share one buffer.
/// Each encoding is also the WebSocket frame that carries it, framed in the same buffer, so a
/// WebSocket recipient writes the shared frame as it is (``WebSocketFrameWriter``).
struct StompMessageEncodingCache {
    private struct Key: Hashable {
        var subscription: String
        var acknowledged: Bool
        var version: StompVersion
    }

    private let message: StompMessage
    private let allocator: ByteBufferAllocator
    private var encoded: [Key: WebSocketPreparedMessage] = [:]
    /// The encoding asked for last: recipients mostly ask for the same one in a row, and are
    /// spared hashing the key then.
    private var last: (key: Key, frame: WebSocketPreparedMessage)?

    /// Whether the frames are UTF-8 (a WebSocket sends them as text then). Their headers are
    /// Swift strings, so the body decides; it is checked once here, not once per recipient.
    private(set) lazy var isUTF8 = WebSocketMessage.isText(message.body)

    init(message: StompMessage, allocator: ByteBufferAllocator) {
        self.message = message
        self.allocator = allocator
    }

    /// The frame's bytes, as a byte stream carries them.
    mutating func frame(subscription: String, acknowledged: Bool, version: StompVersion) -> ByteBuffer {
        webSocketFrame(subscription: subscription, acknowledged: acknowledged, version: version).message.data
    }

    /// The frame as one WebSocket message, text when it is UTF-8.
    mutating func webSocketFrame(subscription: String, acknowledged: Bool, version: StompVersion) -> WebSocketPreparedMessage {
        let key = Key(subscription: subscription, acknowledged: acknowledged && version == .v1_2, version: version)
        if let last, last.key == key { return last.frame }
        let frame = encoded[key] ?? WebSocketPreparedMessage(
            kind: isUTF8 ? .text : .binary,
            payloadCapacity: message.estimatedSize(subscription: subscription),
            allocator: allocator
        ) { buffer in
            message.write(subscription: subscription, acknowledged: acknowledged, version: version, into: &buffer)
        }
        encoded[key] = frame
        last = (key, frame)
        return frame
    }
}
