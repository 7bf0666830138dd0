#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Foundation

/// What only the running server knows about itself (who is connected right now), as it
/// answers on the data directory's socket (``ChangeNudge``): one JSON line, then the close.
public struct ServerLiveFigures: Codable, Sendable, Equatable {
    /// Signed-in STOMP sessions (over WebSocket and plain TCP).
    public var stompSessions: Int
    /// Users with at least one signed-in session.
    public var stompUsers: Int

    /// Makes the figures a server reports about itself.
    public init(stompSessions: Int, stompUsers: Int) {
        self.stompSessions = stompSessions
        self.stompUsers = stompUsers
    }

    /// The line the server writes.
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    /// Asks the server running on `dataDirectory`; nil when none answers within `timeout`
    /// seconds (not running, or too busy to say).
    public static func ask(dataDirectory: String, timeout: Double = 2) -> ServerLiveFigures? {
        guard let path = ChangeNudge.socketPath(dataDirectory: dataDirectory),
              let descriptor = ChangeNudge.connected(to: path, blocking: true) else { return nil }
        defer { close(descriptor) }
        // Every read is bounded: a stuck server makes the answer nil, never a hung command.
        var limit = timeval()
        limit.tv_sec = .init(timeout.rounded(.down))
        limit.tv_usec = .init((timeout - timeout.rounded(.down)) * 1_000_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var answer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1024)
        while answer.count < 64 * 1024 {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            answer += chunk[..<count]
        }
        return try? JSONDecoder().decode(ServerLiveFigures.self, from: Data(answer))
    }
}
