import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A STOMP frame's command: every client and server command of STOMP 1.0, 1.1 and 1.2.
public enum StompCommand: String, Sendable, CaseIterable {
    // Client frames.
    case connect = "CONNECT"
    case stomp = "STOMP"
    case send = "SEND"
    case subscribe = "SUBSCRIBE"
    case unsubscribe = "UNSUBSCRIBE"
    case ack = "ACK"
    case nack = "NACK"
    case begin = "BEGIN"
    case commit = "COMMIT"
    case abort = "ABORT"
    case disconnect = "DISCONNECT"
    // Server frames.
    case connected = "CONNECTED"
    case message = "MESSAGE"
    case receipt = "RECEIPT"
    case error = "ERROR"

    /// The longest command name; a longer command line is refused without being read to its end.
    static let maximumLength = 11

    /// Parses a command line's bytes in place, without building a `String`.
    init?(line: ByteBuffer) {
        let found = line.withUnsafeReadableBytes { bytes in
            Self.allCases.first { command in
                var name = command.rawValue
                return name.withUTF8 { $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            }
        }
        guard let found else { return nil }
        self = found
    }

    /// `CONNECT`, `STOMP` and `CONNECTED` never escape their headers (STOMP 1.2 "Value Encoding").
    var escapesHeaders: Bool {
        switch self {
        case .connect, .stomp, .connected: false
        default: true
        }
    }

    /// Only these frames may carry a body; any other frame with a body is a protocol violation.
    var allowsBody: Bool {
        switch self {
        case .send, .message, .error: true
        default: false
        }
    }
}
