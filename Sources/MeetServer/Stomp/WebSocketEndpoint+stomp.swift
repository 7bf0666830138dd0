import NIOCore
import Stomp
import WebSocket

extension WebSocketEndpoint {
    /// `/ws` speaking STOMP: the subprotocol is the highest of `v12.stomp`, `v11.stomp`,
    /// `v10.stomp` the client offers (a client offering none still gets STOMP, versioned by
    /// CONNECT). Every valid upgrade is accepted: a missing or bad token is answered in STOMP,
    /// with an ERROR frame and the close, as clients expect. Messages are bounded by what one
    /// STOMP frame may hold, not by the WebSocket layer's generic 16 MiB.
    static func stomp(_ broker: StompBroker) -> WebSocketEndpoint {
        var configuration = WebSocketConfiguration()
        configuration.subprotocols = StompBroker.webSocketSubprotocols
        configuration.maximumMessageSize = broker.maximumWebSocketMessageSize
        return WebSocketEndpoint(
            configuration: configuration,
            shouldUpgrade: { _, channel in channel.eventLoop.makeSucceededFuture(.accept()) },
            addHandlers: { channel, request in
                try broker.addWebSocketSession(to: channel.pipeline.syncOperations,
                                               transportToken: StompUpgradeToken.token(in: request.head))
            }
        )
    }
}
