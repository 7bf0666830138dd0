/// What one HTTP connection may take from the server before it is refused or closed. Each
/// limit keeps a client that never signs in from holding file descriptors, memory or a worker
/// for free (docs/operations.md says which attack each one stops).
public struct HTTPConnectionLimits: Sendable {
    /// How long a client has to send a complete request head, counted from the connection's
    /// start or from the first byte of a later request; a slow sender then gets 408 and the close.
    public var headTimeout: Duration = .seconds(10)
    /// How long a request body may stop arriving while the server waits for it; the client then
    /// gets 408 and the close. Without it a body sent a byte now and then holds its connection.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a keep-alive connection may sit between requests before it is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// The largest request head (request line and headers); larger ones get 431 and the close.
    public var maxHeadSize = 32 * 1024
    /// The largest request body the connection carries, declared or sent; larger ones get 413
    /// and the close. Routes may refuse smaller bodies themselves.
    public var maxBodySize = 32 * 1024 * 1024
    /// The most connections one client address may hold open at once (0: no limit); the next
    /// one gets 503 with `Retry-After` and the close. Upgraded WebSocket connections no longer
    /// count: the STOMP limits bound them.
    public var maxConnectionsPerAddress = 1024

    /// The defaults.
    public init() {}
}
