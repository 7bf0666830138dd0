import Foundation
import Synchronization

/// The ranked lists behind feed cursors. The first page fixes the order of every result,
/// later pages read on from it: whatever joins, edits or new meetings happen meanwhile, a
/// client scrolling through never sees a meeting twice nor misses one.
///
/// Held in memory within a byte budget, oldest out first, for at most `lifetime`; saved
/// over a graceful restart (`FeedCursorStore`). An unknown, evicted or expired cursor is
/// refused with `feed.cursorExpired` and the client starts again from the first page.
final class FeedSnapshots: Sendable {
    struct Snapshot: Sendable {
        var viewerId: String
        var created: Date
        /// The point asked about, which pages measure distances from; `nil` without one.
        var center: Coordinate?
        var list: FeedList
        /// The first page's request when its ranking stopped at a depth short of
        /// `MeetingService.feedDepth` with more to come: the later page that reaches the end
        /// of `list` ranks it again, deeper (`deepen`). `nil` once `list` holds every result.
        var deeper: FeedRequest? = nil

        /// Memory taken, roughly: the list, the viewer's id, and an allowance for the token,
        /// its dictionary entry and its place in the eviction queue, and for the request.
        var bytes: Int {
            list.bytes + viewerId.utf8.count + 160 + (deeper.map { 120 + $0.activityIds.reduce(0) { $0 + $1.utf8.count + 16 } } ?? 0)
        }
    }

    /// What the lists may take together; see docs/ranking.md ("Cursors") for the reasons.
    static let byteBudget = 32 << 20
    static let lifetime: TimeInterval = 30 * 60

    /// The budget this store keeps to.
    let budget: Int
    private let state = Mutex(State())

    init(budget: Int = FeedSnapshots.byteBudget) {
        self.budget = budget
    }

    /// Stores `snapshot` and returns its token; the oldest lists make way if needed.
    func store(_ snapshot: Snapshot) -> String {
        let token = RandomToken.id()
        state.withLock { state in
            state.dropExpired(before: snapshot.created - Self.lifetime)
            state.append(token, snapshot)
            state.evict(toFit: budget)
        }
        return token
    }

    /// The snapshots still fresh at `now`, by token.
    func live(now: Date) -> [String: Snapshot] {
        state.withLock { state in state.byToken.filter { $0.value.created > now - Self.lifetime } }
    }

    /// Puts back snapshots kept by an earlier run, those still fresh at `now`, as older than
    /// any stored since; the oldest make way if they do not fit.
    func restore(_ saved: [String: Snapshot], now: Date) {
        let fresh = saved.filter { $0.value.created > now - Self.lifetime }.sorted { $0.value.created < $1.value.created }
        state.withLock { state in
            state.prepend(fresh)
            state.evict(toFit: budget)
        }
    }

    /// The snapshot behind `token` if it belongs to `viewerId` and is still fresh, its list
    /// in feed order at least up to `end`.
    func snapshot(_ token: String, viewer viewerId: String, now: Date, sortedThrough end: Int) -> Snapshot? {
        let found = state.withLock { state -> Snapshot? in
            guard let snapshot = state.byToken[token], snapshot.viewerId == viewerId,
                  snapshot.created > now - Self.lifetime else { return nil }
            return snapshot
        }
        guard var snapshot = found, !snapshot.list.isSorted(through: end) else { return found }
        // Sorted outside the lock. A page that raced this one sorted it the same way, or
        // ranked it deeper (`deepen`, which stores lists sorted): that list stays.
        snapshot.list.sortTail()
        return state.withLock { state in
            if let stored = state.byToken[token], stored.deeper == nil, snapshot.deeper != nil { return stored }
            state.replace(token, with: snapshot)
            return snapshot
        }
    }

    /// Stores `deeper`, ranked deeper than the snapshot behind `token` (no longer
    /// `Snapshot.deeper`) and in feed order throughout, and returns it; when a page that raced
    /// this one stored its own first, returns that one instead, so that every page reads on
    /// from the same list. The grown list may push the oldest out of the budget.
    func deepen(_ token: String, to deeper: Snapshot) -> Snapshot {
        precondition(deeper.deeper == nil && deeper.list.isSorted(through: deeper.list.count), "storing a list not ranked deeper")
        return state.withLock { state in
            if let stored = state.byToken[token], stored.deeper == nil { return stored }
            state.replace(token, with: deeper)
            state.evict(toFit: budget)
            return deeper
        }
    }

    /// What the stored lists take, by `Snapshot.bytes`.
    var bytes: Int { state.withLock(\.bytes) }

    /// The lists by token, and their tokens oldest first.
    private struct State {
        var byToken: [String: Snapshot] = [:]
        /// Tokens in the order they were stored; those before `head` are gone.
        var queue: [String] = []
        var head = 0
        var bytes = 0

        mutating func append(_ token: String, _ snapshot: Snapshot) {
            byToken[token] = snapshot
            queue.append(token)
            bytes += snapshot.bytes
        }

        mutating func prepend(_ snapshots: [(key: String, value: Snapshot)]) {
            let new = snapshots.filter { byToken[$0.key] == nil }
            for (token, snapshot) in new {
                byToken[token] = snapshot
                bytes += snapshot.bytes
            }
            queue = new.map(\.key) + queue[head...]
            head = 0
        }

        mutating func replace(_ token: String, with snapshot: Snapshot) {
            guard let old = byToken[token] else { return }
            byToken[token] = snapshot
            bytes += snapshot.bytes - old.bytes
        }

        mutating func dropExpired(before oldest: Date) {
            while head < queue.count, let first = byToken[queue[head]], first.created <= oldest { removeOldest() }
        }

        /// Removes the oldest until the rest fit in `budget`, keeping at least the newest.
        mutating func evict(toFit budget: Int) {
            while bytes > budget && queue.count - head > 1 { removeOldest() }
        }

        private mutating func removeOldest() {
            if let gone = byToken.removeValue(forKey: queue[head]) { bytes -= gone.bytes }
            head += 1
            // Drop the dead front now and then, not on every removal.
            if head >= 1024 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }
}

/// Where a page starts: a snapshot and an offset in it, as one opaque string.
struct FeedCursor: Equatable {
    var token: String
    var offset: Int

    init(token: String, offset: Int) {
        self.token = token
        self.offset = offset
    }

    init?(_ text: String) {
        let parts = text.split(separator: ".")
        // Bounded, so that an offset plus a page size cannot overflow.
        guard parts.count == 2, let offset = Int(parts[1]), (0...Int(Int32.max)).contains(offset) else { return nil }
        token = String(parts[0])
        self.offset = offset
    }

    var text: String { "\(token).\(offset)" }
}
