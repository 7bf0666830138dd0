import Foundation
import GRDB
import Synchronization

/// What a change is about. Areas add their topics as static members in an extension, next
/// to the code that records them.
public struct ChangeTopic: RawRepresentable, Hashable, Sendable {
    /// The topic's name as stored in the change log.
    public var rawValue: String
    /// Wraps a stored name; areas make their topics with it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A `meeting` row was inserted, updated or deleted (by trigger, so from any process);
    /// the subject is the meeting's `number`. Joins, leaves and activity edits touch the row.
    public static let meeting = ChangeTopic(rawValue: "meeting")
}

/// One row of the change log, as a tail delivers it.
public struct Change: Sendable, Equatable {
    /// Grows with every change, in commit order.
    public var id: Int64
    /// What kind of thing changed.
    public var topic: ChangeTopic
    /// What changed: a meeting number, a user id, a message id; the topic says which.
    public var subject: String
    /// Anything else the topic defines (a reason, a room), as text; often nil.
    public var detail: String?
    /// When the change was committed.
    public var createdAt: Date
    /// Committed by this process: state that already follows its own process's writes
    /// (the feed index) skips these; the rest treat every change alike.
    public var isLocal: Bool
}

/// The change log: writes that in-memory structures follow, across processes.
///
/// Record a change inside the transaction that makes it, so that it exists exactly when the
/// change does; a running server's ``ChangeTail`` delivers it within a second:
///
/// ```swift
/// try await database.writer.write { db in
///     try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = ?", arguments: [id])
///     try ChangeLog.record(.userBanned, subject: id, detail: reason, in: db)
/// }
/// ```
public enum ChangeLog {
    static let tableName = "changeLog"

    /// Appends a change in `db`'s current transaction.
    public static func record(_ topic: ChangeTopic, subject: String, detail: String? = nil, in db: Database, at time: Date = Date()) throws {
        try db.execute(
            sql: "INSERT INTO changeLog (topic, subject, detail, createdAt) VALUES (?, ?, ?, ?)",
            arguments: [topic.rawValue, subject, detail, time.timeIntervalSince1970])
    }

    /// The id of the newest change, 0 when the log is empty.
    public static func lastId(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changeLog'") ?? 0
    }

    /// Whether any of the changes `ids` is about `topic`.
    static func contains(_ topic: ChangeTopic, among ids: Set<Int64>, in db: Database) throws -> Bool {
        // One transaction's changes have consecutive ids: writes are serialized.
        guard let first = ids.min(), let last = ids.max() else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM changeLog WHERE id BETWEEN ? AND ? AND topic = ?)
            """), arguments: [first, last, topic.rawValue]) ?? false
    }

    /// The subjects of the changes `ids` that are about `topic`.
    static func subjects(of topic: ChangeTopic, among ids: Set<Int64>, in db: Database) throws -> Set<String> {
        guard let first = ids.min(), let last = ids.max() else { return [] }
        return try Set(String.fetchAll(db.cachedStatement(sql: """
            SELECT subject FROM changeLog WHERE id BETWEEN ? AND ? AND topic = ?
            """), arguments: [first, last, topic.rawValue]))
    }

    /// The changes after `id`, oldest first; `isLocal` is false, the tail decides it.
    static func changes(after id: Int64, limit: Int, in db: Database) throws -> [Change] {
        try Row.fetchAll(db, sql: """
            SELECT id, topic, subject, detail, createdAt FROM changeLog WHERE id > ? ORDER BY id LIMIT ?
            """, arguments: [id, limit]).map { row in
            Change(
                id: row["id"], topic: ChangeTopic(rawValue: row["topic"]), subject: row["subject"], detail: row["detail"],
                createdAt: Date(timeIntervalSince1970: row["createdAt"]), isLocal: false)
        }
    }

    /// Forgets changes older than `time`: a tail only reads what was committed after it
    /// started, a second or so behind.
    static func prune(before time: Date, in db: Database) throws {
        try db.execute(sql: "DELETE FROM changeLog WHERE createdAt < ?", arguments: [time.timeIntervalSince1970])
    }
}

/// Notes the change-log rows each transaction of one process inserts, and hands their ids
/// over once it commits: the server's tail learns which changes are its own, the CLI when
/// to nudge the server, room grants whether one of them ends grants.
final class ChangeCommitObserver: TransactionObserver, Sendable {
    private let pending = Mutex(Set<Int64>())
    private let committed: @Sendable (Set<Int64>, Database) -> Void

    /// `committed` runs on the writer, right after a commit that logged changes, with the
    /// writer's connection (out of any transaction) to read them.
    init(committed: @escaping @Sendable (Set<Int64>, Database) -> Void) {
        self.committed = committed
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == ChangeLog.tableName }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        // GRDB hands over every row a statement that may log a change writes: a trigger's
        // insert into the log comes with the row that fired it, whose rowid means nothing here.
        guard event.kind == .insert, event.tableName == ChangeLog.tableName else { return }
        _ = pending.withLock { $0.insert(event.rowID) }
    }

    func databaseDidCommit(_ db: Database) {
        let ids = pending.withLock { ids in
            defer { ids = [] }
            return ids
        }
        if !ids.isEmpty { committed(ids, db) }
    }

    func databaseDidRollback(_ db: Database) {
        pending.withLock { $0 = [] }
    }
}
