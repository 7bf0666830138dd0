/// A WebSocket close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The code as sent on the wire.
    public var rawValue: UInt16

    /// Creates a code from its wire value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates a code from an integer literal, e.g. `4001`.
    public init(integerLiteral value: UInt16) { self.rawValue = value }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure: Self = 1000
    /// 1001: the server is shutting down or the peer is leaving.
    public static let goingAway: Self = 1001
    /// 1002: the peer broke the protocol.
    public static let protocolError: Self = 1002
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData: Self = 1003
    /// 1005: no status code was present. Never sent on the wire.
    public static let noStatusReceived: Self = 1005
    /// 1006: the connection dropped without a closing handshake. Never sent on the wire.
    public static let abnormalClosure: Self = 1006
    /// 1007: a text message (or close reason) was not valid UTF-8.
    public static let invalidFramePayloadData: Self = 1007
    /// 1008: the message violates the application's policy.
    public static let policyViolation: Self = 1008
    /// 1009: a message is too big to process.
    public static let messageTooBig: Self = 1009
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension: Self = 1010
    /// 1011: the server hit an unexpected condition.
    public static let internalError: Self = 1011

    /// Whether a peer may send this code in a close frame.
    ///
    /// 1000–1003 and 1007–1011 are defined by RFC 6455; 3000–4999 belong to libraries and
    /// applications. 1004–1006 and 1015 must never appear on the wire, and the rest of
    /// 0–2999 is unassigned. 1012–1014 were registered after the RFC but the Autobahn suite
    /// still lists them as invalid, so they are refused as well.
    public var isValidOnTheWire: Bool {
        switch self.rawValue {
        case 1000...1003, 1007...1011, 3000...4999: return true
        default: return false
        }
    }

    /// The decimal code.
    public var description: String { String(self.rawValue) }
}
