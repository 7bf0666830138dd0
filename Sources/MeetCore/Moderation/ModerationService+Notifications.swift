import Foundation
import GRDB

/// Push deliveries by state, for `notifications stats`.
public struct PushDeliveryStats: Codable, Sendable, Equatable {
    /// Jobs waiting for their due time or for a sender.
    public var pending: Int
    /// Jobs a sender has taken and not yet finished.
    public var sending: Int
    /// Jobs the push service accepted.
    public var delivered: Int
    /// Jobs given up on: out of attempts, or the device disabled (`retryDeadPushes` revives them).
    public var dead: Int
}

extension ModerationService {
    /// How many push jobs are in each state.
    public func pushStats() async throws -> PushDeliveryStats {
        try await database.reader.read { db in
            let counts = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT state, count(*) FROM pushJob GROUP BY state")
                .map { (row: Row) -> (String, Int) in (row[0], row[1]) })
            return PushDeliveryStats(
                pending: counts["pending"] ?? 0, sending: counts["sending"] ?? 0, delivered: counts["delivered"] ?? 0, dead: counts["dead"] ?? 0)
        }
    }

    /// Makes every dead push job due again, with a fresh count of attempts; answers how many.
    public func retryDeadPushes(by moderator: Moderator) async throws -> Int {
        let time = now()
        return try await database.writer.write { db in
            try db.execute(sql: "UPDATE pushJob SET state = 'pending', attempts = 0, dueAt = ?, updatedAt = ? WHERE state = 'dead'",
                           arguments: [time.timeIntervalSince1970, time.timeIntervalSince1970])
            let count = db.changesCount
            try AuditLog.record("notification.retryDead", targetType: "pushJob", targetId: "dead", by: moderator.name,
                                detail: String(count), in: db, at: time)
            return count
        }
    }

    /// Forgets delivered and dead push jobs older than `days`; answers how many.
    public func purgePushes(olderThanDays days: Int, by moderator: Moderator) async throws -> Int {
        let time = now()
        return try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM pushJob WHERE state IN ('delivered', 'dead') AND updatedAt < ?",
                           arguments: [time.timeIntervalSince1970 - Double(days) * 86_400])
            let count = db.changesCount
            try AuditLog.record("notification.purge", targetType: "pushJob", targetId: "finished", by: moderator.name,
                                detail: "\(count) older than \(days) days", in: db, at: time)
            return count
        }
    }
}
