import MeetCore
import Metrics
import Prometheus

/// `mail_held_back_total{limit}`: account mails the throttle kept from going out, by
/// the limit that held them (`recipient`, `client`). The handles are made once, here.
struct MailMetrics: Sendable {
    private let heldBack: [MailThrottle.Limit: Metrics.Counter]

    init(registry: PrometheusCollectorRegistry) {
        let factory = PrometheusMetricsFactory(registry: registry)
        heldBack = Dictionary(uniqueKeysWithValues: [MailThrottle.Limit.recipient, .client].map { limit in
            (limit, Metrics.Counter(label: "mail_held_back_total", dimensions: [("limit", limit.rawValue)], factory: factory))
        })
    }

    /// Counts one held-back mail.
    func count(_ refusal: MailThrottle.Refusal) {
        heldBack[refusal.limit]?.increment()
    }
}
