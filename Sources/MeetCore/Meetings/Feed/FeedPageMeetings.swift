import Dispatch
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
        let full = state.withLock { state -> Dropped? in
            guard state.generation == generation else { return nil }
            let added = items.values.reduce(0) { $0 + $1.bytes }
            var full: Dropped?
            if state.bytes + added > Self.byteBudget {
                full = Dropped(state)
                state = State(generation: generation)
            }
            for (number, item) in items {
                if let old = state.items.updateValue(item, forKey: number) { state.bytes -= old.bytes }
            }
            state.bytes += added
            return full
        }
        // Freeing a full cache's 19,000 readings took 16 ms: under the lock, and on this
        // request's event loop, it held up every page (p99.9 of the relevance feed at 1,000/s,
        // docs/benchmarks.md). Another thread frees them.
        if let full { Self.freeing.async { full.state = nil } }
    }

    /// Where a fresh start's readings are freed.
    static let freeing = DispatchQueue(label: "meetupd.feed-page-meetings.freeing", qos: .utility)

    /// What a fresh start dropped, held only here, so that the last reference goes where
    /// `state` is set to `nil`, not wherever the box is released.
    private final class Dropped: @unchecked Sendable {
        var state: State?

        init(_ state: State) {
            self.state = state
        }
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
