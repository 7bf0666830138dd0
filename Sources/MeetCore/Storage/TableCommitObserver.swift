import GRDB
import Synchronization

/// Calls `onChange` on the writer after each committed transaction that inserted, updated or
/// deleted rows of some tables: what GRDB's `DatabaseRegionObservation` of those tables does,
/// for less. As with it, rows of a `WITHOUT ROWID` table are not seen changing; rows that a
/// trigger or a cascade changes are. GRDB asks every transaction observer about every
/// statement the writer runs; the region observation answered by building two
/// `DatabaseRegion`s (dictionaries keyed by a lowercased copy of the table name) and
/// intersecting them, where this compares two names.
final class TableCommitObserver: TransactionObserver, Sendable {
    private let tables: [String]
    private let onChange: @Sendable () -> Void
    /// Written and read on the writer's queue only; atomic to be `Sendable`.
    private let changed = Atomic<Bool>(false)
    private let cancelled = Atomic<Bool>(false)

    private init(tables: [String], onChange: @escaping @Sendable () -> Void) {
        self.tables = tables
        self.onChange = onChange
    }

    /// Starts observing `tables` on `writer` (from any thread, the writer's own included) until
    /// the returned handle is cancelled.
    static func start(_ tables: [String], in writer: any DatabaseWriter,
                      onChange: @escaping @Sendable () -> Void) -> AnyDatabaseCancellable {
        let observer = TableCommitObserver(tables: tables, onChange: onChange)
        writer.unsafeReentrantWrite { db in db.add(transactionObserver: observer, extent: .observerLifetime) }
        // The handle keeps the observer; once it lets go, GRDB (which holds it weakly) forgets it.
        let kept = Mutex<TableCommitObserver?>(observer)
        return AnyDatabaseCancellable {
            kept.withLock { observer in
                observer?.cancelled.store(true, ordering: .relaxed)
                observer = nil
            }
        }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        tables.contains { Self.sameName(eventKind.tableName, $0) }
    }

    func databaseDidChange() {
        changed.store(true, ordering: .relaxed)
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        databaseDidChange()
    }

    func databaseDidCommit(_ db: Database) {
        guard changed.exchange(false, ordering: .relaxed), !cancelled.load(ordering: .relaxed) else { return }
        onChange()
    }

    func databaseDidRollback(_ db: Database) {
        changed.store(false, ordering: .relaxed)
    }

    /// SQLite's table names ignore ASCII case, as `DatabaseRegion` does; most statements touch
    /// other tables, told apart by length or a byte without lowercasing anything.
    private static func sameName(_ name: String, _ other: String) -> Bool {
        guard name.utf8.count == other.utf8.count else { return false }
        return zip(name.utf8, other.utf8).allSatisfy { byte, otherByte in
            byte == otherByte
                || (byte | 0x20 == otherByte | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20))
        }
    }
}
