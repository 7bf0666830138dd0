import Foundation
import Synchronization

/// The ranked lists behind feed cursors. The first page fixes the order of every result,
/// later pages read on from it: whatever joins, edits or new meetings happen meanwhile, a
/// client scrolling through never sees a meeting twice nor misses one.
///
/// Held in memory, bounded in count and age, and saved over a graceful restart
/// (`FeedCursorStore`); an unknown or expired cursor is refused with `feed.cursorExpired`
/// and the client starts again from the first page.
final class FeedSnapshots: Sendable {
    struct Snapshot: Sendable {
        var viewerId: String
        var created: Date
        var numbers: [Int64]
        /// Beside each number, its distance from the point asked about; NaN for none.
        var distances: [Double]
    }

    static let maxCount = 10_000
    static let lifetime: TimeInterval = 30 * 60

    private let state = Mutex<[String: Snapshot]>([:])

    /// Stores `snapshot` and returns its token.
    func store(_ snapshot: Snapshot) -> String {
        let token = RandomToken.id()
        state.withLock { snapshots in
            if snapshots.count >= Self.maxCount {
                let oldEnough = snapshot.created - Self.lifetime
                snapshots = snapshots.filter { $0.value.created > oldEnough }
                // Still full of fresh ones: the oldest make way.
                if snapshots.count >= Self.maxCount {
                    let oldest = snapshots.sorted { $0.value.created < $1.value.created }.prefix(Self.maxCount / 10)
                    for (key, _) in oldest { snapshots[key] = nil }
                }
            }
            snapshots[token] = snapshot
        }
        return token
    }

    /// The snapshots still fresh at `now`, by token.
    func live(now: Date) -> [String: Snapshot] {
        state.withLock { snapshots in snapshots.filter { $0.value.created > now - Self.lifetime } }
    }

    /// Puts back snapshots kept by an earlier run, those still fresh at `now`.
    func restore(_ saved: [String: Snapshot], now: Date) {
        let fresh = saved.filter { $0.value.created > now - Self.lifetime }
        state.withLock { snapshots in snapshots.merge(fresh) { current, _ in current } }
    }

    /// The snapshot behind `token` if it belongs to `viewerId` and is still fresh.
    func snapshot(_ token: String, viewer viewerId: String, now: Date) -> Snapshot? {
        state.withLock { snapshots in
            guard let snapshot = snapshots[token], snapshot.viewerId == viewerId,
                  snapshot.created > now - Self.lifetime else { return nil }
            return snapshot
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
        guard parts.count == 2, let offset = Int(parts[1]), offset >= 0 else { return nil }
        token = String(parts[0])
        self.offset = offset
    }

    var text: String { "\(token).\(offset)" }
}
