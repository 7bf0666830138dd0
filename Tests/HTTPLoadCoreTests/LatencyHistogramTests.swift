@testable import HTTPLoadCore
import Testing

@Suite struct LatencyHistogramTests {
    @Test func anEmptyHistogramAnswersZero() {
        let histogram = LatencyHistogram()
        #expect(histogram.count == 0)
        #expect(histogram.value(atQuantile: 0.99) == 0)
        #expect(histogram.mean == 0)
    }

    @Test func smallValuesAreExact() {
        var histogram = LatencyHistogram()
        for value in [3, 1, 255, 2] as [Int64] { histogram.record(value) }
        #expect(histogram.value(atQuantile: 0.25) == 1)
        #expect(histogram.value(atQuantile: 0.5) == 2)
        #expect(histogram.value(atQuantile: 0.75) == 3)
        #expect(histogram.value(atQuantile: 1) == 255)
        #expect(histogram.min == 1 && histogram.max == 255)
        #expect(histogram.mean == 65.25)
    }

    @Test func bucketsTileTheRangeWithBoundedRelativeError() {
        var previousHighest: Int64 = -1
        for index in 0..<LatencyHistogram.bucketCount {
            let highest = LatencyHistogram.highestValue(inBucket: index)
            let lowest = previousHighest + 1
            // Every bucket starts right after the previous one and holds its own bounds.
            #expect(LatencyHistogram.bucket(of: lowest) == index)
            #expect(LatencyHistogram.bucket(of: highest) == index)
            #expect(Double(highest - lowest) <= Double(lowest) / 128)
            previousHighest = highest
        }
        #expect(previousHighest == .max)
    }

    @Test func percentilesOfAKnownDistribution() {
        var histogram = LatencyHistogram()
        // 1 µs ... 10,000 µs, once each: the q-quantile is q × 10 ms.
        for microseconds in 1...10_000 { histogram.record(Int64(microseconds) * 1_000) }
        for (quantile, exact) in [(0.5, 5_000_000.0), (0.9, 9_000_000), (0.99, 9_900_000), (0.999, 9_990_000)] {
            let reported = Double(histogram.value(atQuantile: quantile))
            #expect(reported >= exact && reported <= exact * (1 + 1.0 / 128), "q=\(quantile): \(reported)")
        }
        #expect(histogram.value(atQuantile: 1) == 10_000_000)
        #expect(histogram.count == 10_000)
    }

    @Test func aStallShowsInTheTailNotInTheMedian() {
        var histogram = LatencyHistogram()
        for _ in 0..<990 { histogram.record(1_000_000) }
        for _ in 0..<10 { histogram.record(2_000_000_000) }
        // The bucket's upper bound: at most 1/128 above the value.
        #expect((1_000_000...1_007_813).contains(histogram.value(atQuantile: 0.5)))
        #expect((1_000_000...1_007_813).contains(histogram.value(atQuantile: 0.99)))
        #expect(histogram.value(atQuantile: 0.999) == 2_000_000_000)
    }

    @Test func negativeLatenciesCountAsZero() {
        var histogram = LatencyHistogram()
        histogram.record(-5)
        #expect(histogram.min == 0 && histogram.max == 0 && histogram.count == 1)
    }
}
