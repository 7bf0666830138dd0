import Metrics

/// The broker's metrics (swift-metrics; the process chooses the backend, e.g. Prometheus).
struct StompMetrics: Sendable {
    let sessions = Meter(label: "stomp_sessions")
    let subscriptions = Meter(label: "stomp_subscriptions")
    let bytesIn = Counter(label: "stomp_bytes_in_total")
    let bytesOut = Counter(label: "stomp_bytes_out_total")
    let slowConsumers = Counter(label: "stomp_slow_consumers_dropped_total")
    /// SENDs whose publisher was paused until their recipients caught up (``StompPublisherFlow``).
    let publisherPauses = Counter(label: "stomp_publisher_pauses_total")
    let heartBeatTimeouts = Counter(label: "stomp_heartbeat_timeouts_total")
    let connectTimeouts = Counter(label: "stomp_connect_timeouts_total")
    let crowdedOut = Counter(label: "stomp_unauthenticated_crowded_out_total")
    let tooMuchBeforeConnect = Counter(label: "stomp_too_much_before_connect_total")
    let unauthenticated = Meter(label: "stomp_unauthenticated_sessions")
    private let framesIn: [StompCommand: Counter]
    private let framesOut: [StompCommand: Counter]

    init() {
        framesIn = Dictionary(uniqueKeysWithValues: StompCommand.allCases.map {
            ($0, Counter(label: "stomp_frames_in_total", dimensions: [("command", $0.rawValue)]))
        })
        framesOut = Dictionary(uniqueKeysWithValues: StompCommand.allCases.map {
            ($0, Counter(label: "stomp_frames_out_total", dimensions: [("command", $0.rawValue)]))
        })
    }

    func received(_ command: StompCommand) {
        framesIn[command]?.increment()
    }

    func sent(_ command: StompCommand, count: Int = 1) {
        framesOut[command]?.increment(by: count)
    }
}
