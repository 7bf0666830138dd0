import MeetCore
import Metrics
import Prometheus

/// `notification_mails_total{outcome}`: each attempt to send a mail of the outbox (notification
/// and account mails; the name predates the latter), by what
/// became of it: `sent`, `failed` (transient, tried again until `--mail-max-attempts`) or
/// `refused` (a 5xx, given up). A rising `failed` is an SMTP server in trouble.
struct MailOutcomeMetrics: Sendable {
    private let sent: Metrics.Counter
    private let failed: Metrics.Counter
    private let refused: Metrics.Counter

    init(registry: PrometheusCollectorRegistry) {
        let factory = PrometheusMetricsFactory(registry: registry)
        func counter(_ outcome: String) -> Metrics.Counter {
            Metrics.Counter(label: "notification_mails_total", dimensions: [("outcome", outcome)], factory: factory)
        }
        sent = counter("sent")
        failed = counter("failed")
        refused = counter("refused")
    }

    func count(_ outcome: MailOutcome) {
        switch outcome {
        case .sent: sent.increment()
        case .retry: failed.increment()
        case .refused: refused.increment()
        }
    }
}
