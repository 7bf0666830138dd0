import Foundation
import GRDB

/// Forgets chat pushes once nobody needs them. A chat notification (``ChatPushes``) is never an
/// inbox entry: once its pushes are finished (delivered, dead or withdrawn) it only takes room,
/// one row per member and burst, for ever. Those older than ``retention`` go, with their push
/// jobs; one still waiting (held by quiet hours, or retrying) stays whatever its age.
public struct ChatPushRetention: Sendable {
    /// How long a finished chat push is kept: a day, time enough to look into what was pushed.
    public static let retention: TimeInterval = 86_400
    /// Rows deleted per transaction, so that a sweep never holds the writer long.
    static let batchSize = 500

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A sweeper on `database` that judges a push's age by `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Deletes the finished chat pushes older than ``retention``; answers how many.
    @discardableResult
    public func sweep() async throws -> Int {
        let cutoff = now().addingTimeInterval(-Self.retention)
        var total = 0
        while true {
            let deleted = try await database.writer.write { db in
                // The kind is written out, not bound, so that SQLite can use the partial index (455).
                try db.execute(sql: """
                    DELETE FROM notification WHERE seq IN (
                        SELECT seq FROM notification
                        WHERE kind = '\(ChatPushes.kind)' AND createdAt < ?
                          AND NOT EXISTS (SELECT 1 FROM pushJob WHERE notificationId = notification.id AND state IN ('pending', 'sending'))
                        LIMIT ?)
                    """, arguments: [cutoff, Self.batchSize])
                return db.changesCount
            }
            total += deleted
            if deleted < Self.batchSize { return total }
        }
    }
}
