import NIOCore
import WebSocket

/// What `/ws` does: which requests may upgrade, and which handler speaks over the socket.
///
/// The server asks `shouldUpgrade` only for requests that passed the RFC 6455 handshake
/// rules and target `path`; `addHandlers` then puts the application's handler (its
/// `InboundIn` is ``WebSocket/WebSocketMessage``) after the WebSocket layer.
public struct WebSocketEndpoint: Sendable {
    /// The request path that upgrades; other paths asking to upgrade get 404.
    public var path: String
    /// Limits, subprotocols, compression and timeouts of the WebSocket layer.
    public var configuration: WebSocketConfiguration
    /// Accepts or refuses a valid upgrade request (authentication, say). Runs on the
    /// connection's event loop.
    public var shouldUpgrade: @Sendable (WebSocketUpgradeRequest, any Channel) -> EventLoopFuture<WebSocketUpgradeDecision>
    /// Adds the application's handlers to the upgraded channel, on its event loop.
    public var addHandlers: @Sendable (any Channel, WebSocketUpgradeRequest) throws -> Void

    /// Creates an endpoint.
    public init(
        path: String = "/ws",
        configuration: WebSocketConfiguration = WebSocketConfiguration(),
        shouldUpgrade: @escaping @Sendable (WebSocketUpgradeRequest, any Channel) -> EventLoopFuture<WebSocketUpgradeDecision>,
        addHandlers: @escaping @Sendable (any Channel, WebSocketUpgradeRequest) throws -> Void
    ) {
        self.path = path
        self.configuration = configuration
        self.shouldUpgrade = shouldUpgrade
        self.addHandlers = addHandlers
    }

    /// Echoes every message back: for checking the WebSocket layer on its own
    /// (`meetupd serve --websocket-echo`). Never on by default.
    public static func echo(configuration: WebSocketConfiguration = WebSocketConfiguration()) -> WebSocketEndpoint {
        WebSocketEndpoint(
            configuration: configuration,
            shouldUpgrade: { _, channel in channel.eventLoop.makeSucceededFuture(.accept()) },
            addHandlers: { channel, _ in try channel.pipeline.syncOperations.addHandler(WebSocketEchoHandler()) }
        )
    }
}
