/// Everything `meetupd serve` can be told: where to listen and where the data lives.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Holds the SQLite database, media files and the mail and push drops.
    public var dataDirectory: String
    /// Echo every WebSocket message on `/ws` instead of speaking STOMP: a test mode for
    /// checking the WebSocket layer on its own. Off by default.
    public var webSocketEcho = false

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "meetupd-data") {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
    }
}
