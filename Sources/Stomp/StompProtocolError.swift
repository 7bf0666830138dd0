import NIOCore

/// A violation of the STOMP protocol or of this server's limits. Each one is answered with an
/// ERROR frame whose `message` header names it, followed by the close.
public enum StompProtocolError: Error, Sendable, Equatable {
    case commandTooLong(limit: Int)
    case unknownCommand(String)
    case tooManyHeaders(limit: Int)
    case headerTooLong(limit: Int)
    case malformedHeader
    case invalidEscape
    case invalidContentLength(String)
    case bodyTooLarge(limit: Int)
    case bodyNotTerminated
    case bodyNotAllowed(StompCommand)
    case missingHeader(String, StompCommand)
    case unexpectedFrame(StompCommand)
    case unsupportedVersion(offered: String)
    case invalidHeartBeat(String)
    case invalidAckMode(String)
    case duplicateSubscription(String)
    case unknownAck(String)
    case unknownTransaction(String)
    case duplicateTransaction(String)
    case transactionTooLarge(limit: Int)
    case alreadyConnected
    case notConnected(StompCommand)
    case heartBeatTimeout(window: TimeAmount)
    case slowConsumer(limit: Int)
    case tooManyHeld(limit: Int)
    case tooManyUnacknowledged(limit: Int)
    case connectTimeout(TimeAmount)
    case tooMuchBeforeConnect(limit: Int)
    case crowdedOut(limit: Int)

    /// The text of the ERROR frame's `message` header: short, stable, and naming the rule broken.
    public var message: String {
        switch self {
        case .commandTooLong(let limit): "command too long (limit \(limit) bytes)"
        case .unknownCommand(let command): "unknown command \(command.prefix(32))"
        case .tooManyHeaders(let limit): "too many headers (limit \(limit))"
        case .headerTooLong(let limit): "header too long (limit \(limit) bytes)"
        case .malformedHeader: "malformed header: a header line needs a colon"
        case .invalidEscape: "invalid escape sequence in a header"
        case .invalidContentLength(let value): "invalid content-length \(value.prefix(32))"
        case .bodyTooLarge(let limit): "body too large (limit \(limit) bytes)"
        case .bodyNotTerminated: "frame body not terminated by NUL"
        case .bodyNotAllowed(let command): "\(command.rawValue) frames must not have a body"
        case .missingHeader(let name, let command): "\(command.rawValue) requires the \(name) header"
        case .unexpectedFrame(let command): "unexpected \(command.rawValue) frame"
        case .unsupportedVersion: "Supported protocol versions are \(StompVersion.supportedList)"
        case .invalidHeartBeat(let value): "invalid heart-beat \(value.prefix(32))"
        case .invalidAckMode(let value): "invalid ack mode \(value.prefix(32))"
        case .duplicateSubscription(let id): "subscription id \(id.prefix(64)) is already in use"
        case .unknownAck(let id): "no unacknowledged message \(id.prefix(64))"
        case .unknownTransaction(let id): "unknown transaction \(id.prefix(64))"
        case .duplicateTransaction(let id): "transaction \(id.prefix(64)) already begun"
        case .transactionTooLarge(let limit): "transaction too large (limit \(limit) frames)"
        case .alreadyConnected: "already connected"
        case .heartBeatTimeout(let window): "heart-beat timeout: nothing received for \(window.nanoseconds / 1_000_000) ms"
        case .slowConsumer(let limit): "slow consumer: more than \(limit) bytes waiting to be sent"
        case .tooManyHeld(let limit): "slow consumer: more than \(limit) live messages held back while catching up"
        case .tooManyUnacknowledged(let limit): "slow consumer: more than \(limit) unacknowledged messages"
        case .notConnected(let command): "expected CONNECT or STOMP, got \(command.rawValue)"
        case .connectTimeout(let timeout): "no CONNECT within \(timeout.nanoseconds / 1_000_000) ms"
        case .tooMuchBeforeConnect(let limit): "more than \(limit) bytes before CONNECTED"
        case .crowdedOut(let limit): "too many connections waiting to sign in (limit \(limit)); this one waited longest"
        }
    }
}

/// Sizes past which a peer's frame is refused. Every limit bounds the memory one frame can take
/// before the decoder gives up on it.
public struct StompLimits: Sendable, Equatable {
    /// The longest command line, in bytes.
    public var maxCommandLength: Int
    /// The most header lines in one frame, repeats included.
    public var maxHeaderCount: Int
    /// The longest header line, in bytes, before unescaping.
    public var maxHeaderLength: Int
    /// The largest body, in bytes.
    public var maxBodySize: Int
    /// The most bytes a client may send before CONNECTED: its CONNECT frame, and anything it
    /// pipelines behind it. A real CONNECT takes well under a kilobyte.
    public var maxConnectFrameSize: Int

    /// Creates limits.
    public init(maxCommandLength: Int = 32, maxHeaderCount: Int = 64, maxHeaderLength: Int = 8 * 1024,
                maxBodySize: Int = 1024 * 1024, maxConnectFrameSize: Int = 16 * 1024) {
        self.maxCommandLength = maxCommandLength
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderLength = maxHeaderLength
        self.maxBodySize = maxBodySize
        self.maxConnectFrameSize = maxConnectFrameSize
    }

    /// The largest frame these limits let through: command line, every header line, the blank
    /// line, the body and its NUL (each line with a CRLF). A transport need not carry more in
    /// one message.
    public var maxFrameSize: Int {
        (maxCommandLength + 2) + maxHeaderCount * (maxHeaderLength + 2) + 2 + maxBodySize + 1
    }
}
