import Foundation

/// Where a node's relay broker listens and how to sign in to it:
/// `stomp://USER:PASS@HOST:PORT/VHOST` (RabbitMQ's STOMP adapter; port 61613 when left out,
/// virtual host `/` when the path is empty).
public struct RelayEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var login: String
    public var passcode: String
    public var virtualHost: String

    /// Reads a `stomp://` URL, or answers nil when `text` is none (another scheme, no host,
    /// a bad port, a query or fragment).
    public init?(url text: String) {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "stomp",
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil else { return nil }
        let port = url.port ?? 61613
        guard (1...65535).contains(port) else { return nil }
        self.host = host
        self.port = port
        login = url.user ?? "guest"
        passcode = url.password ?? "guest"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        virtualHost = path.isEmpty ? "/" : path
    }
}
