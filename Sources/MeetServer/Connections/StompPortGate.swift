import Metrics
import Stomp

/// The connection bounds of `--stomp-port`. Every connection counts against the process-wide
/// ``OpenConnections`` the main port uses, for its whole life; and it holds a place of its address
/// until it signs in, as an HTTP connection does until its WebSocket upgrade, so one address
/// cannot fill the port with sockets that never sign in. The address places are counted apart
/// from HTTP, at the same limit (`--max-connections-per-address`); trusted proxies are not counted.
struct StompPortGate: StompAddressGate {
    private let open: OpenConnections
    private let perAddress: ConnectionsPerAddress
    private let trustedProxies: TrustedProxies
    private let refusedAtFileLimit = Counter(label: "stomp_connections_refused_total", dimensions: [("reason", "fileLimit")])
    private let refusedPerAddress = Counter(label: "stomp_connections_refused_total", dimensions: [("reason", "perAddress")])

    init(open: OpenConnections, limit: Int, trustedProxies: TrustedProxies) {
        self.open = open
        self.perAddress = ConnectionsPerAddress(limit: limit)
        self.trustedProxies = trustedProxies
    }

    func admit(_ address: String) -> String? {
        guard open.admit() else {
            refusedAtFileLimit.increment()
            return "the server holds too many connections; try again later"
        }
        guard trustedProxies.contains(address) || perAddress.admit(address) else {
            open.release()
            refusedPerAddress.increment()
            return "too many connections from your address; try again later"
        }
        return nil
    }

    func signedIn(_ address: String) {
        if !trustedProxies.contains(address) { perAddress.release(address) }
    }

    func closed(_ address: String, signedIn: Bool) {
        if !signedIn { self.signedIn(address) }
        open.release()
    }
}
