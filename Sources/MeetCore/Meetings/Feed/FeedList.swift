/// The ranked meetings behind a feed cursor, kept small: meeting numbers as 32-bit offsets
/// from the smallest (4 bytes a meeting), no distances (a page measures them again from the
/// meeting's place and the point asked about).
///
/// The first page sorts only itself; the meetings after it are selected but unordered and
/// keep their ranking keys (16 bytes more each), so that the first later page that reaches
/// them can sort them into exactly the order a full sort would have given, and drop the keys.
struct FeedList: Sendable {
    /// The smallest meeting number; the others are stored as offsets from it.
    let base: Int64
    private(set) var offsets: [UInt32]
    /// How many of `offsets`, from the start, are in feed order.
    private(set) var sortedCount: Int
    /// Beside each unordered offset (from `sortedCount` on): its key and its start, as in
    /// `RankedMeeting`.
    private var tailKeys: [Double]

    /// `ranked` as `FeedIndexState.rank` leaves it, its first `sortedCount` in order; `nil`
    /// when its meeting numbers are 2³² or more apart (never with numbers given by SQLite to
    /// fewer than four billion meetings).
    init?(_ ranked: [RankedMeeting], sortedCount: Int) {
        guard var base = ranked.first?.number else { return nil }
        var top = base
        for meeting in ranked {
            base = min(base, meeting.number)
            top = max(top, meeting.number)
        }
        guard top - base <= Int64(UInt32.max) else { return nil }
        self.base = base
        // Written in place: built by `map` and appends, a first page spent 50,000
        // instructions here (callgrind).
        offsets = [UInt32](unsafeUninitializedCapacity: ranked.count) { offsets, count in
            for (index, meeting) in ranked.enumerated() {
                offsets[index] = UInt32(truncatingIfNeeded: meeting.number - base)
            }
            count = ranked.count
        }
        let sorted = min(sortedCount, ranked.count)
        self.sortedCount = sorted
        tailKeys = [Double](unsafeUninitializedCapacity: 2 * (ranked.count - sorted)) { keys, count in
            for index in sorted..<ranked.count {
                keys[2 * (index - sorted)] = ranked[index].key
                keys[2 * (index - sorted) + 1] = ranked[index].startsAt
            }
            count = 2 * (ranked.count - sorted)
        }
    }

    /// A list read back in feed order (`FeedCursorStore`).
    init(base: Int64, offsets: [UInt32]) {
        self.base = base
        self.offsets = offsets
        sortedCount = offsets.count
        tailKeys = []
    }

    var count: Int { offsets.count }

    /// What the list takes in memory, roughly: its arrays and a fixed allowance for the rest.
    var bytes: Int { 128 + offsets.count * 4 + tailKeys.count * 8 }

    /// Whether the meetings up to `end` are in feed order.
    func isSorted(through end: Int) -> Bool { sortedCount >= min(end, count) }

    /// The meeting numbers in `range`, which must be sorted (`isSorted(through:)`).
    func numbers(_ range: Range<Int>) -> [Int64] {
        precondition(range.upperBound <= sortedCount, "reading an unsorted part of a feed list")
        return offsets[range].map { base + Int64($0) }
    }

    /// This list, in feed order throughout (`isSorted(through: count)`), followed by
    /// `ranked` as `init` takes it less the meetings already here: the list a later page
    /// ranked deeper. `nil` as `init` is.
    func extended(by ranked: [RankedMeeting], sortedCount: Int) -> FeedList? {
        precondition(self.sortedCount == count, "extending a feed list whose tail is unordered")
        let here = Set(numbers(0..<count))
        let new = ranked.indices.filter { !here.contains(ranked[$0].number) }
        // The meetings here are in order: their keys are never read.
        let all = numbers(0..<count).map { RankedMeeting(key: 0, startsAt: 0, number: $0) } + new.map { ranked[$0] }
        return FeedList(all, sortedCount: count + new.count(where: { $0 < sortedCount }))
    }

    /// Puts the unordered meetings in feed order, after the sorted ones, and drops their keys.
    mutating func sortTail() {
        guard sortedCount < count else { return }
        var tail = (sortedCount..<count).map { i in
            let k = 2 * (i - sortedCount)
            return RankedMeeting(key: tailKeys[k], startsAt: tailKeys[k + 1], number: base + Int64(offsets[i]))
        }
        tail.sort()
        offsets.replaceSubrange(sortedCount..., with: tail.map { UInt32($0.number - base) })
        sortedCount = count
        tailKeys = []
    }
}
