import Synchronization

/// The meetings feed pages showed lately, as pages show them, so that a page reads from the
/// database only those it has not seen: the same few meetings lead the date feed of a whole
/// city, and reading 20 rows and their activities was a sixth of a feed request (issue 21).
///
/// It is kept exactly as fresh as `FeedIndex`: the index drops from it every meeting a
/// commit touches (joins, leaves and activity edits touch the meeting row too, by triggers)
/// on the writer, before the write returns, and those another process changed when the
/// change log brings them (`FeedIndex.follow`). A page's read may race a commit: it stores
/// what it read only if nothing was dropped since before its read began (`generation`), so
/// a row older than a drop is never kept. Bounded: past `byteBudget` it starts afresh.
final class FeedPageMeetings: Sendable {
    /// What the kept meetings and their texts as pages show them may take together: some
    /// 18,000 meetings like the benchmark's (`PageMeeting.bytes`), 750 with the longest
    /// descriptions.
    static let byteBudget = 24 << 20

    private struct State {
        var items: [Int64: PageMeeting] = [:]
        var bytes = 0
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Take it before a read whose rows may be stored (`store(_:readSince:)`).
    var generation: UInt64 { state.withLock(\.generation) }

    /// The kept items among `numbers`.
    func items(_ numbers: [Int64]) -> [Int64: PageMeeting] {
        state.withLock { state in
            var found: [Int64: PageMeeting] = [:]
            found.reserveCapacity(numbers.count)
            for number in numbers {
                if let item = state.items[number] { found[number] = item }
            }
            return found
        }
    }

    /// Keeps `items`, read from a snapshot taken after `generation` was; not if a meeting
    /// was dropped since, as the snapshot may predate that commit.
    func store(_ items: [Int64: PageMeeting], readSince generation: UInt64) {
        let full = state.withLock { state -> State? in
            guard state.generation == generation else { return nil }
            let added = items.values.reduce(0) { $0 + $1.bytes }
            var full: State?
            if state.bytes + added > Self.byteBudget {
                full = state
                state = State(generation: generation)
            }
            for (number, item) in items {
                if let old = state.items.updateValue(item, forKey: number) { state.bytes -= old.bytes }
            }
            state.bytes += added
            return full
        }
        // Consumed, so that no copy stays here to be released last on this thread.
        if full != nil { CacheRelease.release(consume full) }
    }

    /// Forgets `numbers`: a commit changed them.
    func drop(_ numbers: Set<Int64>) {
        guard !numbers.isEmpty else { return }
        state.withLock { state in
            state.generation &+= 1
            for number in numbers {
                if let old = state.items.removeValue(forKey: number) { state.bytes -= old.bytes }
            }
        }
    }
}
