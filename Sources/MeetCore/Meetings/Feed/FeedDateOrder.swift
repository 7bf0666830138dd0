extension FeedIndexState {
    /// The date order near a point: the first `depth` meetings of the circle and the online
    /// list that `filter` admits, all in feed order (by start, then number).
    ///
    /// Each cell's list and the online list are kept in time order, so their meetings are
    /// merged in time order (a heap of each list's next meeting) and the merge stops once
    /// `depth` are taken: about a page's depth of meetings read instead of every candidate
    /// in the circle (some 8,500 in a dense city) scored and selected. The result is the
    /// one the full scan gives (`FeedDateOrderTests` compares them).
    func rankByDate(near circle: GeoCircle, filter: FeedFilter, depth: Int) -> [RankedMeeting] {
        let center = CircleDistance(circle)
        let cells = cellLists(near: circle)
        // The lists from `from` on, end to end in one flat array: the merge then reads slots
        // without reaching into an array of arrays (a retain and release per meeting).
        var slots: [Int32] = []
        slots.reserveCapacity(cells.reduce(online.count) { $0 + $1.count })
        var heads = TimeHeap()
        heads.reserve(cells.count + 1)
        func addRun(_ list: [Int32]) {
            let start = slots.count
            slots.append(contentsOf: list[startPosition(from: filter.from, in: list)...])
            if slots.count > start { heads.push(head(at: start, end: slots.count, of: slots)) }
        }
        for list in cells { addRun(list) }
        let onlineStart = Int32(slots.count)
        addRun(online)
        var ranked: [RankedMeeting] = []
        ranked.reserveCapacity(depth)
        while ranked.count < depth, let next = heads.first {
            if let to = filter.to, next.startsAt >= to { break }
            let slot = slots[Int(next.position)]
            let entry = entries[Int(slot)]
            if (next.position >= onlineStart || center.contains(entry)) && filter.admits(entry, slot: slot) {
                ranked.append(RankedMeeting(key: entry.startsAt, startsAt: entry.startsAt, number: entry.number))
            }
            let position = Int(next.position) + 1
            if position < Int(next.end) {
                heads.replaceFirst(with: head(at: position, end: Int(next.end), of: slots))
            } else {
                heads.removeFirst()
            }
        }
        return ranked
    }

    /// Where `list`, in time order, reaches `from`: most often its start, as the index drops
    /// meetings once they start; else by a binary search.
    private func startPosition(from time: Double, in list: [Int32]) -> Int {
        guard let first = list.first, entries[Int(first)].startsAt < time else { return 0 }
        return timePosition(from: time, in: list)
    }

    /// The meeting at `position` of `slots`, in a run ending at `end`, as a heap element.
    private func head(at position: Int, end: Int, of slots: [Int32]) -> TimeHeap.Head {
        let entry = entries[Int(slots[position])]
        return TimeHeap.Head(startsAt: entry.startsAt, number: entry.number, position: Int32(position), end: Int32(end))
    }
}

/// A binary min-heap of the next meeting of each time-ordered list, by `(startsAt, number)`:
/// flat values, so that moving them costs no reference counting.
private struct TimeHeap {
    struct Head {
        var startsAt: Double
        var number: Int64
        /// Where it is in the merge's slots, and where its list ends there.
        var position: Int32
        var end: Int32

        func precedes(_ other: Head) -> Bool { (startsAt, number) < (other.startsAt, other.number) }
    }

    private var heads: [Head] = []

    var first: Head? { heads.first }

    mutating func reserve(_ count: Int) { heads.reserveCapacity(count) }

    mutating func push(_ head: Head) {
        heads.append(head)
        var child = heads.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heads[child].precedes(heads[parent]) else { break }
            heads.swapAt(child, parent)
            child = parent
        }
    }

    mutating func replaceFirst(with head: Head) {
        heads[0] = head
        siftDown()
    }

    mutating func removeFirst() {
        let last = heads.removeLast()
        guard !heads.isEmpty else { return }
        heads[0] = last
        siftDown()
    }

    private mutating func siftDown() {
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heads.count else { return }
            let right = left + 1
            let child = right < heads.count && heads[right].precedes(heads[left]) ? right : left
            guard heads[child].precedes(heads[parent]) else { return }
            heads.swapAt(child, parent)
            parent = child
        }
    }
}
