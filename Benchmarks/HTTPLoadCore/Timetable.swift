/// When each request of an open-loop run is due: a fixed rate from the start, a warm-up
/// whose requests are sent but not measured, then the measured requests.
///
/// Due times are computed from the request's number, never by adding intervals, so they do
/// not drift however long the run.
public struct Timetable: Equatable, Sendable {
    /// Requests per second.
    public let rate: Int
    /// The first `warmUpCount` requests are sent at the rate but left out of the figures.
    public let warmUpCount: Int
    /// Requests measured after the warm-up.
    public let measuredCount: Int

    /// A run at `rate` requests per second: `warmUpSeconds`, then `measuredSeconds`.
    public init(rate: Int, warmUpSeconds: Int, measuredSeconds: Int) {
        precondition(rate > 0 && warmUpSeconds >= 0 && measuredSeconds > 0)
        self.rate = rate
        self.warmUpCount = rate * warmUpSeconds
        self.measuredCount = rate * measuredSeconds
    }

    /// Every request of the run, warm-up included.
    public var totalCount: Int { warmUpCount + measuredCount }

    /// Nanoseconds after the start at which request `number` (from 0) is due.
    public func offset(of number: Int) -> Int64 {
        Int64(number) * 1_000_000_000 / Int64(rate)
    }

    /// How many requests are due `elapsed` nanoseconds after the start: those whose offset
    /// is at most `elapsed`, up to the whole run.
    public func dueCount(after elapsed: Int64) -> Int {
        guard elapsed >= 0 else { return 0 }
        // offset(n) <= elapsed  ⇔  n * 1e9 < (elapsed + 1) * rate, so the count is that bound rounded up.
        let due = ((elapsed + 1) * Int64(rate) + 999_999_999) / 1_000_000_000
        return Int(min(due, Int64(totalCount)))
    }

    /// Whether request `number` is part of the figures (not the warm-up).
    public func isMeasured(_ number: Int) -> Bool { number >= warmUpCount }
}
