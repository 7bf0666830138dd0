import Foundation
import GRDB
import Synchronization

/// Every meeting the feed can show (public, not cancelled, upcoming), in memory, so that a
/// feed query reads no meeting rows at all; `docs/ranking.md` explains it.
///
/// It follows every write made through this process's `AppDatabase.writer`: a transaction
/// observer on the writer notes the `meeting` rows a transaction touches (joins, leaves and
/// activity edits touch the row too, by triggers) and, once it commits, re-reads just those
/// meetings on the writer, before any later transaction, so the index changes in commit
/// order. A rollback changes nothing. Writes from another process reach it through the
/// change log (`ChangeTail`, `follow(_:)`), re-read on the writer in the same way.
///
/// It loads on first use from a read snapshot while writes go on; the commits meanwhile are
/// re-read on the writer at the end of the load.
final class FeedIndex: TransactionObserver, Sendable {
    private enum Phase {
        case unloaded
        /// The meetings committed while loading, to re-read once it is done.
        case loading(missed: Set<Int64>)
        case loaded
    }

    private struct Storage {
        var state = FeedIndexState()
        var phase = Phase.unloaded
    }

    private let database: AppDatabase
    private let now: @Sendable () -> Date
    private let storage = ReadWriteLocked(Storage())
    /// The meetings the current transaction touched; only the writer uses it.
    private let touched = Mutex(Set<Int64>())
    private let loading = Mutex<Task<Void, any Error>?>(nil)
    /// The meetings pages showed lately; dropped here whenever a commit touches them, loaded
    /// or not.
    let pageMeetings = FeedPageMeetings()

    init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
        database.writer.add(transactionObserver: self)
    }

    /// Loads the index unless it is loaded; concurrent callers share one load.
    func ready() async throws {
        let task = loading.withLock { task in
            if let task { return task }
            let new = Task { try await self.load() }
            task = new
            return new
        }
        do {
            try await task.value
        } catch {
            // Unloaded again (no list of missed meetings growing meanwhile), unless another
            // load has started since; the next query retries.
            loading.withLock { current in
                guard current == task else { return }
                current = nil
                storage.write { $0 = Storage() }
            }
            throw error
        }
    }

    /// The first `depth` meetings for `request` as ranked at `time` (seconds since 1970), the
    /// first `sorted` in feed order; see `FeedIndexState.rank`. `nil` while the index is not
    /// loaded (it was dropped after a failed refresh since `ready()`): an empty index must
    /// not pass for an empty feed.
    ///
    /// A later page ranking deeper passes the time of its first page, so that the meetings
    /// still here keep the keys, and so the order, they had then.
    func rank(_ request: FeedRequest, from: Double, viewer: FeedViewer, at time: Double, depth: Int, sorted: Int) -> [RankedMeeting]? {
        let current = now().timeIntervalSince1970
        if storage.read({ $0.state.hasStarted(before: current) }) {
            storage.write { $0.state.prune(before: current) }
        }
        return storage.read { storage in
            guard case .loaded = storage.phase else { return nil }
            return storage.state.rank(request, from: max(from, time), viewer: viewer, now: time, depth: depth, sorted: sorted)
        }
    }

    /// A copy of the index, for tests to compare.
    var state: FeedIndexState { storage.read { $0.state } }

    private func load() async throws {
        storage.write { $0 = Storage(phase: .loading(missed: [])) }
        let start = now().timeIntervalSince1970
        var built = FeedIndexState(loading: try await database.reader.read { db in try FeedRows.upcoming(from: start, in: db) })
        storage.write { swap(&$0.state, &built) }
        // On the writer no commit can slip between re-reading what was missed and going live.
        try await database.writer.writeWithoutTransaction { db in
            let missed = self.storage.read { storage -> Set<Int64> in
                guard case .loading(let missed) = storage.phase else { return [] }
                return missed
            }
            try self.refresh(missed, in: db)
            self.storage.write { $0.phase = .loaded }
        }
    }

    /// Re-reads `numbers` and puts them in the index as they are now.
    private func refresh(_ numbers: Set<Int64>, in db: Database) throws {
        guard !numbers.isEmpty else { return }
        let rows = try FeedRows.meetings(numbers, from: now().timeIntervalSince1970, in: db)
        storage.write { storage in
            for number in numbers { storage.state.remove(number) }
            for row in rows { storage.state.upsert(row) }
        }
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == MeetingRecord.databaseTableName
    }

    func databaseDidChange(with event: DatabaseEvent) {
        _ = touched.withLock { $0.insert(event.rowID) }
    }

    func databaseDidCommit(_ db: Database) {
        let numbers = touched.withLock { touched in
            defer { touched = [] }
            return touched
        }
        pageMeetings.drop(numbers)
        apply(numbers, in: db)
    }

    func databaseDidRollback(_ db: Database) {
        touched.withLock { $0 = [] }
    }

    /// Re-reads meetings another process changed, on the writer, so that they take their
    /// place among this process's commits in order.
    func follow(_ numbers: Set<Int64>) async {
        guard !numbers.isEmpty else { return }
        pageMeetings.drop(numbers)
        // A failure resets the index like any failed refresh; the writer itself failing
        // leaves nothing to re-read on.
        try? await database.writer.writeWithoutTransaction { db in self.apply(numbers, in: db) }
    }

    /// Puts the meetings as they are in `db` in the index: at once when it is loaded, after
    /// the load when it is loading.
    private func apply(_ numbers: Set<Int64>, in db: Database) {
        guard !numbers.isEmpty else { return }
        let live = storage.write { storage -> Bool in
            switch storage.phase {
            case .unloaded:
                return false
            case .loading(let missed):
                storage.phase = .loading(missed: missed.union(numbers))
                return false
            case .loaded:
                return true
            }
        }
        guard live else { return }
        do {
            try refresh(numbers, in: db)
        } catch {
            // The index can no longer be trusted: the next feed query loads it afresh. Under
            // the loading lock, so that no new load starts before the reset.
            loading.withLock { task in
                task = nil
                storage.write { $0 = Storage() }
            }
        }
    }
}
