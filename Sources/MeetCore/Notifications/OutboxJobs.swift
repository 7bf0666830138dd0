import Foundation
import GRDB

/// A queue over an outbox table (``PushQueue``, ``MailQueue``): what they share comes from
/// their ``OutboxJobs``; each keeps only what a claimed row becomes and what an outcome does.
public protocol OutboxQueue: Sendable {
    /// The bookkeeping of the queue's table.
    var jobs: OutboxJobs { get }
}

extension OutboxQueue {
    /// Puts back the rows a crash left claimed: their delivery may or may not have happened,
    /// so they go again (a repeat is the lesser harm than a loss; a push carries its
    /// notification id so the app drops it). Call it once, before the first claim. Answers how many there were.
    @discardableResult
    public func requeueInterrupted() async throws -> Int {
        try await jobs.requeueInterrupted()
    }

    /// The earliest time a pending row falls due, if any.
    public func nextDue() async throws -> Date? {
        try await jobs.nextDue()
    }
}

/// The job bookkeeping both outboxes share (`pushJob`, `mailJob`): a row is `pending` until
/// due, `sending` once claimed (the attempt counted), then done, `pending` again after the
/// retry policy's backoff, or `dead`.
public struct OutboxJobs: Sendable {
    /// The outbox table: `pushJob` or `mailJob`.
    let table: String
    let database: AppDatabase
    let retry: PushRetryPolicy
    let now: @Sendable () -> Date

    /// Sets every `sending` row `pending` again; answers how many.
    func requeueInterrupted() async throws -> Int {
        try await database.writer.write { [table, now] db in
            try db.execute(sql: "UPDATE \(table) SET state = 'pending', updatedAt = ? WHERE state = 'sending'",
                           arguments: [now().timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// Claims up to `limit` due rows, oldest due first, counting the attempt; answers the
    /// `returning` columns of each. Runs inside the caller's transaction.
    func claimDue(limit: Int, returning columns: String, at time: Double, in db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: """
            UPDATE \(table) SET state = 'sending', attempts = attempts + 1, updatedAt = ?
            WHERE id IN (SELECT id FROM \(table) WHERE state = 'pending' AND dueAt <= ? ORDER BY dueAt, id LIMIT ?)
            RETURNING \(columns)
            """, arguments: [time, time, limit])
    }

    /// The earliest time a pending row falls due, if any.
    func nextDue() async throws -> Date? {
        try await database.reader.read { [table] db in
            try Double.fetchOne(db, sql: "SELECT min(dueAt) FROM \(table) WHERE state = 'pending'").map(Date.init(timeIntervalSince1970:))
        }
    }

    /// How many rows of `table` are in each state.
    static func counts(in table: String, _ db: Database) throws -> [String: Int] {
        try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT state, count(*) FROM \(table) GROUP BY state")
            .map { (row: Row) -> (String, Int) in (row[0], row[1]) })
    }

    /// Makes every dead row of `table` due at `time` with a fresh count of attempts; answers how many.
    static func reviveDead(in table: String, at time: Double, _ db: Database) throws -> Int {
        try db.execute(sql: "UPDATE \(table) SET state = 'pending', attempts = 0, dueAt = ?, updatedAt = ? WHERE state = 'dead'",
                       arguments: [time, time])
        return db.changesCount
    }
}
