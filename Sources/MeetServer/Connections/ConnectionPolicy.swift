import MeetCore

/// What every connection guard of the main port shares: the limits, the per-address counts,
/// the process-wide count, the canned refusals, the refusal metrics and the trusted proxies.
struct ConnectionPolicy: Sendable {
    let limits: HTTPConnectionLimits
    let trustedProxies: TrustedProxies
    let perAddress: ConnectionsPerAddress
    let open: OpenConnections
    let refusals: ConnectionRefusals
    let metrics = HTTPRefusalMetrics()

    /// `open` is shared with the other listeners of the process (`--stomp-port`): they all hold
    /// descriptors of the same file table.
    init(limits: HTTPConnectionLimits, trustedProxies: TrustedProxies, localizer: any Localizing,
         open: OpenConnections = .belowFileLimit()) {
        self.limits = limits
        self.open = open
        self.trustedProxies = trustedProxies
        self.perAddress = ConnectionsPerAddress(limit: limits.maxConnectionsPerAddress)
        self.refusals = ConnectionRefusals(localizer: localizer, limits: limits)
    }

    /// Whether a connection from `peer` counts against its address: a trusted proxy speaks for
    /// many clients, so its connections do not.
    func countsAddress(_ peer: String) -> Bool {
        !trustedProxies.contains(peer)
    }
}
