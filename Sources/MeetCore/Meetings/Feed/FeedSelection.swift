/// The `depth` smallest of the meetings offered one by one, without keeping them all: they
/// gather in a buffer cut back to `depth` whenever it holds half as many more, and once it was
/// cut, a meeting above the `depth`-th smallest at the last cut is turned away with one
/// comparison.
/// A feed ranks some 8,500 candidates for 1,000 places; selecting among all of them was a
/// tenth of a relevance request (issue 21).
struct SmallestMeetings {
    let depth: Int
    private var buffer: [RankedMeeting] = []
    /// The `depth`-th smallest at the last cut (none before the first): nothing above it can
    /// be among the smallest, though those kept since may have pushed the true bar lower.
    private(set) var worst: RankedMeeting?

    init(_ depth: Int) {
        self.depth = depth
        buffer.reserveCapacity(depth + depth / 2 + 1)
    }

    /// Whether `depth` meetings were offered.
    var isFull: Bool { worst != nil || buffer.count >= depth }

    mutating func offer(_ meeting: RankedMeeting) {
        if let worst, worst < meeting { return }
        buffer.append(meeting)
        if buffer.count >= depth + depth / 2 + 1 { cut() }
    }

    /// The `depth` smallest offered, the `sorted` smallest first and in order, the rest
    /// after them in no order (`keepSmallest`).
    consuming func smallest(sortingFirst sorted: Int) -> [RankedMeeting] {
        buffer.keepSmallest(depth, sortingFirst: sorted)
        return buffer
    }

    private mutating func cut() {
        buffer.cutToSmallest(depth)
        worst = buffer.last
    }
}

extension Array where Element: Comparable {
    /// Keeps the `k` smallest elements, the `sorted` smallest of them first and in order,
    /// the rest after them in no order: selections cut to them, so that only `sorted` are
    /// sorted however many there were.
    mutating func keepSmallest(_ k: Int, sortingFirst sorted: Int) {
        if count > k { cutToSmallest(k) }
        let sorted = Swift.min(sorted, count)
        if sorted < count { selectSmallest(sorted) }
        self[..<sorted].sort()
    }

    /// How many elements a sample drawn at regular steps has.
    static var sampleSize: Int { 128 }

    /// Keeps the `k` smallest elements (`k` below `count`), in no order but the largest of
    /// them last.
    mutating func cutToSmallest(_ k: Int) {
        selectSmallest(k)
        removeLast(count - k)
    }

    /// Reorders the elements so that the `k` smallest come first, the `k`-th of them at
    /// `k - 1`: Hoare's quickselect, over the front that `narrowToSmallest` leaves.
    private mutating func selectSmallest(_ k: Int) {
        guard k > 0 else { return }
        let front = narrowToSmallest(k)
        // Through the buffer: swaps through the array were a call each, half the selection.
        withUnsafeMutableBufferPointer { Self.select(k - 1, in: $0, through: front - 1) }
    }

    /// Reorders `elements[0...last]` so that the one at `target` is where sorting would put
    /// it, none before it above it and none after it below it.
    private static func select(_ target: Int, in elements: UnsafeMutableBufferPointer<Element>, through last: Int) {
        var (low, high) = (0, last)
        // Invariant: low <= target <= high, nothing before low above anything in
        // low...high, nothing after high below it; so the loop ends with the k-th at target.
        while low < high {
            let pivot = elements[(low + high) / 2]
            var (i, j) = (low, high)
            while i <= j {
                while elements[i] < pivot { i += 1 }
                while pivot < elements[j] { j -= 1 }
                if i <= j {
                    elements.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Between j and i every element equals the pivot: the target is one of them.
            if target <= j { high = j } else if target >= i { low = i } else { break }
        }
    }

    /// Floyd and Rivest's first step: moves to the front every element not above a pivot
    /// taken from a sample, a little above where the `k`-th should fall, and returns how
    /// many there are; the quickselect then searches a few more than `k` instead of all
    /// (for a page of 20 among 1,000 ranked, about 50). When the
    /// front falls short of `k` (an unlucky sample), it returns the whole count.
    private mutating func narrowToSmallest(_ k: Int) -> Int {
        let size = Self.sampleSize
        guard count >= 4 * k, count >= 4 * size else { return count }
        var sample = (0..<size).map { self[$0 * count / size] }
        // Two standard deviations above the k-th's expected place in the sample, selected
        // there: sorting the sample cost two thirds of a page's selection (callgrind).
        let p = Double(k) / Double(count)
        let place = Swift.min(size - 1, Int(Double(size) * p + 2 * (Double(size) * p * (1 - p)).squareRoot()) + 1)
        sample.withUnsafeMutableBufferPointer { Self.select(place, in: $0, through: size - 1) }
        let pivot = sample[place]
        let front = partition { pivot < $0 }
        return front >= k ? front : count
    }
}
