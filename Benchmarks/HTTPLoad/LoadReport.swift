import Foundation
import HTTPLoadCore
import NIOCore

/// The figures of a run, as printed and as `--json` writes them (times in milliseconds).
struct LoadReport: Codable, Sendable {
    var server: String
    var connections: Int
    var targetRate: Int
    var warmUpSeconds: Int
    var measuredSeconds: Int
    /// Measured requests on the timetable, and what became of them.
    var requests: Int
    var answered: Int
    /// Responses over the whole run, warm-up included.
    var responses: Int
    var non2xx: Int
    var statuses: [String: Int]
    /// Connections that failed with a request in flight.
    var errors: Int
    /// Requests still unanswered when the drain timeout ended the run.
    var unanswered: Int
    /// Answers per second from the first measured due time to the last answer.
    var achievedRate: Double
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double
    var mean: Double
    var meanResponseBytes: Int
    /// The most requests that were due but waiting for a free connection at once.
    var deepestBacklog: Int
    /// How late HTTPLoad's timer woke (p99 and max, ms): its own lag, in every latency above.
    var wakeUpLateP99: Double
    var wakeUpLateMax: Double
    /// The load generator's own CPU time over the measured part, and as a share of one core.
    var cpuSeconds: Double
    var cpuPercentOfCore: Double

    var text: String {
        let codes = statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return """
            HTTPLoad → \(server): \(connections) connections, \(targetRate) req/s for \(measuredSeconds) s after \(warmUpSeconds) s warm-up
              requests \(requests), answered \(answered) (\(codes.isEmpty ? "none" : codes)), non-2xx \(non2xx), errors \(errors), unanswered \(unanswered)
              achieved \(format(achievedRate, 1)) req/s, mean response \(meanResponseBytes) bytes, deepest backlog \(deepestBacklog)
              timer woke late by p99 \(format(wakeUpLateP99)) ms, max \(format(wakeUpLateMax)) ms
              latency from the scheduled send to the last byte: p50 \(format(p50)) ms, p90 \(format(p90)) ms, \
            p99 \(format(p99)) ms, p99.9 \(format(p999)) ms, max \(format(max)) ms, mean \(format(mean)) ms
              load generator CPU: \(format(cpuSeconds)) s, \(format(cpuPercentOfCore, 1)) % of one core
            """
    }

    private func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}

/// What a run counts as answers come in: only the measured requests, never the warm-up.
struct LoadTally {
    private var latencies = LatencyHistogram()
    private var wakeUpLateness = LatencyHistogram()
    private var statuses: [Int: Int] = [:]
    private var errors = 0
    private var unanswered = 0
    private var bodyBytes = 0
    private var lastAnswer: NIODeadline?
    private var deepestBacklog = 0
    private var cpuAtStart = 0.0

    mutating func beginMeasuring() {
        cpuAtStart = Self.processCPUSeconds()
    }

    mutating func noteBacklog(_ waiting: Int) {
        deepestBacklog = Swift.max(deepestBacklog, waiting)
    }

    mutating func noteWakeUp(lateBy nanoseconds: Int64) {
        wakeUpLateness.record(nanoseconds)
    }

    mutating func answer(latency: Int64, status: Int, bodyBytes: Int, at time: NIODeadline) {
        latencies.record(latency)
        statuses[status, default: 0] += 1
        self.bodyBytes += bodyBytes
        lastAnswer = time
    }

    mutating func fail() {
        errors += 1
    }

    mutating func giveUp(latency: Int64) {
        latencies.record(latency)
        unanswered += 1
    }

    func report(_ settings: LoadRun.Settings, responses: Int, measuringFrom start: NIODeadline, until end: NIODeadline) -> LoadReport {
        let answered = statuses.values.reduce(0, +)
        let answering = Double(((lastAnswer ?? end) - start).nanoseconds) / 1e9
        let measuring = Double((end - start).nanoseconds) / 1e9
        let cpu = Self.processCPUSeconds() - cpuAtStart
        func milliseconds(_ quantile: Double) -> Double { Double(latencies.value(atQuantile: quantile)) / 1e6 }
        return LoadReport(
            server: "\(settings.host):\(settings.port)", connections: settings.connections,
            targetRate: settings.timetable.rate, warmUpSeconds: settings.timetable.warmUpCount / settings.timetable.rate,
            measuredSeconds: settings.timetable.measuredCount / settings.timetable.rate,
            requests: settings.timetable.measuredCount, answered: answered, responses: responses,
            non2xx: statuses.filter { !(200..<300).contains($0.key) }.values.reduce(0, +),
            statuses: Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), $0.value) }),
            errors: errors, unanswered: unanswered,
            achievedRate: answering > 0 ? Double(answered) / answering : 0,
            p50: milliseconds(0.5), p90: milliseconds(0.9), p99: milliseconds(0.99), p999: milliseconds(0.999),
            max: milliseconds(1), mean: latencies.mean / 1e6,
            meanResponseBytes: answered > 0 ? bodyBytes / answered : 0, deepestBacklog: deepestBacklog,
            wakeUpLateP99: Double(wakeUpLateness.value(atQuantile: 0.99)) / 1e6,
            wakeUpLateMax: Double(wakeUpLateness.max) / 1e6,
            cpuSeconds: cpu, cpuPercentOfCore: measuring > 0 ? cpu / measuring * 100 : 0)
    }

    /// User + system CPU time of this process, all threads.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
