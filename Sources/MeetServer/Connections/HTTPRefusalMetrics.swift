import Metrics

/// One counter per reason the connection guard refused or closed a connection, as
/// `http_connections_refused_total{reason}`.
struct HTTPRefusalMetrics: Sendable {
    enum Reason: String, CaseIterable, Sendable {
        /// The request head did not arrive within the head timeout.
        case headTimeout
        /// A request body stopped arriving for longer than the body timeout.
        case bodyTimeout
        /// A keep-alive connection stayed idle past the idle timeout.
        case idleTimeout
        /// The request head was larger than allowed (431).
        case headTooLarge
        /// The request body, declared or sent, was larger than allowed (413).
        case bodyTooLarge
        /// The HTTP parser refused the request (400).
        case malformed
        /// The client address already held its share of connections (503).
        case perAddress
        /// The process held as many connections as its file limit leaves room for (503).
        case fileLimit
    }

    private let counters: [Reason: Counter]

    init() {
        counters = Dictionary(uniqueKeysWithValues: Reason.allCases.map {
            ($0, Counter(label: "http_connections_refused_total", dimensions: [("reason", $0.rawValue)]))
        })
    }

    func count(_ reason: Reason) {
        counters[reason]?.increment()
    }
}
