/// A STOMP protocol version this implementation speaks.
public enum StompVersion: String, Sendable, CaseIterable, Comparable {
    case v1_0 = "1.0"
    case v1_1 = "1.1"
    case v1_2 = "1.2"

    /// Every supported version, highest first, as listed in an ERROR's `version` header.
    public static let supportedList = "1.2,1.1,1.0"

    /// Picks the highest version both sides speak from an `accept-version` value; a CONNECT
    /// without the header is a STOMP 1.0 client. Returns `nil` when there is no common version.
    public static func negotiate(acceptVersion: String?) -> StompVersion? {
        guard let acceptVersion else { return .v1_0 }
        let offered = acceptVersion.split(separator: ",").map { $0.filter { $0 != " " } }
        return allCases.reversed().first { offered.contains($0.rawValue) }
    }

    /// The WebSocket subprotocol name for this version (`v12.stomp`, ...).
    public var webSocketSubprotocol: String {
        switch self {
        case .v1_0: "v10.stomp"
        case .v1_1: "v11.stomp"
        case .v1_2: "v12.stomp"
        }
    }

    public static func < (lhs: StompVersion, rhs: StompVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
