import Foundation

/// Where a node's relay broker listens and how to sign in to it:
/// `stomp://USER:PASS@HOST:PORT/VHOST?heart-beat=SECONDS` (RabbitMQ's STOMP adapter; port
/// 61613 when left out, virtual host `/` when the path is empty, heart-beats every 10 s both
/// ways unless the query says otherwise).
public struct RelayEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var login: String
    public var passcode: String
    public var virtualHost: String
    /// How often each side beats; a link that hears nothing for three beats is dead.
    public var heartBeat: Duration

    /// Reads a `stomp://` URL, or answers nil when `text` is none (another scheme, no host,
    /// a bad port, a fragment, a query other than `heart-beat` of 1 to 3,600 seconds).
    public init?(url text: String) {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "stomp",
              let host = url.host, !host.isEmpty, url.fragment == nil else { return nil }
        let port = url.port ?? 61613
        guard (1...65535).contains(port) else { return nil }
        switch url.queryItems ?? [] {
        case []:
            heartBeat = .seconds(10)
        case let items where items.count == 1 && items[0].name == "heart-beat":
            guard let seconds = items[0].value.flatMap(Int.init), (1...3600).contains(seconds) else { return nil }
            heartBeat = .seconds(seconds)
        default:
            return nil
        }
        self.host = host
        self.port = port
        login = url.user ?? "guest"
        passcode = url.password ?? "guest"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        virtualHost = path.isEmpty ? "/" : path
    }
}
