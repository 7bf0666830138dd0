extension FeedIndexState {
    /// The date order near a point: the first `depth` meetings of the circle and the online
    /// bands that `filter` admits, the first `sorted` of them in feed order (by start, then
    /// number), the rest after them unordered, as `rank` leaves every order.
    ///
    /// Each cell's list and each online list are kept in time order, so the candidates are
    /// taken by windows of time, each list's run up to a common cut-off, until `depth` are
    /// admitted: about a page's depth of meetings read instead of every candidate in the
    /// circle (some 8,500 in a dense city), and each read once, with no merge. Every meeting
    /// before the last cut-off is taken and none after it, so the `depth` first among them are
    /// the first of all. The result is the one the full scan gives (`FeedDateOrderTests`).
    func rankByDate(near circle: GeoCircle, filter: FeedFilter, depth: Int, sorted: Int) -> [RankedMeeting] {
        let center = CircleDistance(circle)
        var lists = cellLists(near: circle)
        let firstOnline = lists.count
        lists.append(contentsOf: online)
        var positions = lists.map { startPosition(from: filter.from, in: $0) }
        // Every window's meetings start before the next window's: only the last one is cut
        // to the depth, and each window is kept unordered until the end.
        var ranked: [RankedMeeting] = []
        var window: [RankedMeeting] = []
        window.reserveCapacity(depth + depth / 2)
        // The circle's edge cells and the filter drop some: take an eighth more at first,
        // then as many more as the share admitted so far says.
        var wanted = depth + depth / 8
        var read = 0
        while ranked.count < depth {
            guard var cutOff = nextCutOff(lists, from: positions, taking: wanted) else { break }
            if let to = filter.to { cutOff = min(cutOff, to) }
            window.removeAll(keepingCapacity: true)
            for index in lists.indices {
                lists[index].withUnsafeBufferPointer { list in
                    var position = positions[index]
                    while position < list.count {
                        let slot = list[position]
                        let entry = entries[Int(slot)]
                        guard entry.startsAt < cutOff else { break }
                        if (index >= firstOnline || center.contains(entry)) && filter.admits(entry, slot: slot) {
                            window.append(RankedMeeting(key: entry.startsAt, startsAt: entry.startsAt, number: entry.number))
                        }
                        position += 1
                    }
                    read += position - positions[index]
                    positions[index] = position
                }
            }
            let missing = depth - ranked.count
            if window.count > missing {
                let last = window.meeting(missing)
                window.removeAll { last < $0 }
            }
            // The first window (in a city, the only one) is taken whole rather than copied.
            if ranked.isEmpty {
                swap(&ranked, &window)
            } else {
                ranked.append(contentsOf: window)
            }
            if let to = filter.to, cutOff >= to { break }
            let stillMissing = depth - ranked.count
            wanted = stillMissing * read / max(1, ranked.count) * 5 / 4 + 16
        }
        // The page's few by a sample's pivot (`keepSmallest`, 21,000 instructions): a second
        // pass of buckets over the depth cost 57,000 (callgrind).
        ranked.keepSmallest(ranked.count, sortingFirst: sorted)
        return ranked
    }

    /// A start time before which about `count` meetings of `lists` (each from its position on)
    /// start, at least one of them; infinity when they have no more than `count`; `nil` when
    /// they have none. Each list is cut where its share of `count` ends, and the median of
    /// those times is taken: the lists cover one city's cells, so their times spread alike.
    private func nextCutOff(_ lists: [[Int32]], from positions: [Int], taking count: Int) -> Double? {
        let left = zip(lists, positions).reduce(0) { $0 + $1.0.count - $1.1 }
        guard left > 0 else { return nil }
        guard left > count else { return .infinity }
        var times: [Double] = []
        var earliest = Double.infinity
        for (list, position) in zip(lists, positions) where position < list.count {
            let share = (Double(count) * Double(list.count - position) / Double(left)).rounded(.up)
            let last = min(list.count - 1, position + max(0, Int(share) - 1))
            times.append(entries[Int(list[last])].startsAt)
            earliest = min(earliest, entries[Int(list[position])].startsAt)
        }
        times.sort()
        // Past the earliest start, so that every window takes at least one meeting.
        return max(times[times.count / 2], earliest.nextUp)
    }

    /// Where `list`, in time order, reaches `from`: most often its start, as the index drops
    /// meetings once they start; else by a binary search.
    private func startPosition(from time: Double, in list: [Int32]) -> Int {
        guard let first = list.first, entries[Int(first)].startsAt < time else { return 0 }
        return timePosition(from: time, in: list)
    }
}

private extension Array where Element == RankedMeeting {
    /// The `k`-th meeting (from 1) in feed order, for `0 < k <= count`, by buckets of `key`
    /// (the order's first criterion; in the date order, the start): a count per bucket finds
    /// the bucket the `k`-th falls in, and only that bucket's meetings are sorted. For a `k`
    /// near `count` (a window cut to the depth), where no sample narrows the search, a
    /// quickselect over these 24-byte values cost more than twice as much (callgrind).
    func meeting(_ k: Int) -> RankedMeeting {
        var (low, high) = (Double.infinity, -Double.infinity)
        for meeting in self {
            low = Swift.min(low, meeting.key)
            high = Swift.max(high, meeting.key)
        }
        let buckets = 256
        let scale = high > low ? Double(buckets) / (high - low) : 0
        func bucket(_ meeting: RankedMeeting) -> Int { Swift.min(buckets - 1, Int((meeting.key - low) * scale)) }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: buckets) { counts in
            counts.initialize(repeating: 0)
            for meeting in self { counts[bucket(meeting)] += 1 }
            var (edge, before) = (0, 0)
            while before + counts[edge] < k {
                before += counts[edge]
                edge += 1
            }
            var inEdge = filter { bucket($0) == edge }
            inEdge.sort()
            return inEdge[k - before - 1]
        }
    }
}
