/// Latencies in nanoseconds, counted in HdrHistogram-style buckets: exact below 256 ns,
/// then 128 buckets per power of two, so a reported value is at most 1/128 (0.8 %) above
/// the true one. Recording is a few integer operations on a fixed array: no allocation
/// on the load generator's hot path, whatever the number of samples.
public struct LatencyHistogram: Sendable {
    /// Values below `1 << exactBits` get a bucket each.
    static let exactBits = 8
    static let exactCount = 1 << exactBits
    /// Buckets per power of two above the exact range.
    static let halfCount = exactCount / 2
    /// Enough buckets for any positive `Int64`.
    static let bucketCount = exactCount + (63 - exactBits) * halfCount

    private var buckets = [UInt64](repeating: 0, count: bucketCount)
    /// How many values were recorded.
    public private(set) var count = 0
    /// The smallest and largest values recorded, exactly (0 when empty).
    public private(set) var min: Int64 = 0
    public private(set) var max: Int64 = 0
    private var sum: Double = 0

    public init() {}

    /// Counts one latency; negative values count as 0.
    public mutating func record(_ nanoseconds: Int64) {
        let value = Swift.max(0, nanoseconds)
        buckets[Self.bucket(of: value)] += 1
        min = count == 0 ? value : Swift.min(min, value)
        max = Swift.max(max, value)
        count += 1
        sum += Double(value)
    }

    /// The mean of the recorded values (0 when empty).
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// The value at `quantile` (0...1): the smallest bucket's upper bound below which at
    /// least that share of the values lie, never above the largest value recorded.
    /// `quantile(1)` is the maximum; an empty histogram answers 0.
    public func value(atQuantile quantile: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, UInt64((quantile * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in buckets.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return Swift.min(Self.highestValue(inBucket: index), max) }
        }
        return max
    }

    /// The bucket holding `value` (non-negative).
    static func bucket(of value: Int64) -> Int {
        if value < exactCount { return Int(value) }
        let shift = (63 - value.leadingZeroBitCount) - (exactBits - 1)
        let mantissa = Int(value >> shift)  // in halfCount..<exactCount
        return exactCount + (shift - 1) * halfCount + (mantissa - halfCount)
    }

    /// The largest value that lands in bucket `index`.
    static func highestValue(inBucket index: Int) -> Int64 {
        if index < exactCount { return Int64(index) }
        let shift = (index - exactCount) / halfCount + 1
        let mantissa = Int64((index - exactCount) % halfCount + halfCount)
        // `&-`: the last bucket's bound is Int64.max, and 1 << 63 wraps to Int64.min.
        return ((mantissa + 1) << shift) &- 1
    }
}
