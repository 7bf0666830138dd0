import Metrics
import Stomp

/// The per-address bound on `--stomp-port`: a connection holds a place of its address until it
/// signs in, as an HTTP connection does until its WebSocket upgrade, so one address cannot fill
/// the port with sockets that never sign in. Counted apart from HTTP, at the same limit
/// (`--max-connections-per-address`); trusted proxies are not counted.
struct StompPortGate: StompAddressGate {
    private let perAddress: ConnectionsPerAddress
    private let trustedProxies: TrustedProxies
    private let refused = Counter(label: "stomp_connections_refused_total", dimensions: [("reason", "perAddress")])

    init(limit: Int, trustedProxies: TrustedProxies) {
        self.perAddress = ConnectionsPerAddress(limit: limit)
        self.trustedProxies = trustedProxies
    }

    func admit(_ address: String) -> Bool {
        guard !trustedProxies.contains(address), !perAddress.admit(address) else { return true }
        refused.increment()
        return false
    }

    func release(_ address: String) {
        if !trustedProxies.contains(address) { perAddress.release(address) }
    }
}
