import NIOCore
import ServiceLifecycle
import Stomp

/// STOMP over plain TCP on its own port (`--stomp-port`), the same broker as `/ws`. Stops
/// listening on graceful shutdown.
struct StompTCPService: Service {
    let host: String
    let port: Int
    let broker: StompBroker
    /// The per-address bound on connections not signed in yet.
    let gate: StompPortGate

    func run() async throws {
        let listener = try await StompTCPServer.bind(host: host, port: port, broker: broker, gate: gate)
        try? await gracefulShutdown()
        try await listener.close()
    }
}
