import Foundation
import GRDB

/// Push deliveries by state, and the mail outbox's mails by state, for `notifications stats`.
public struct PushDeliveryStats: Codable, Sendable, Equatable {
    /// Jobs waiting for their due time or for a sender.
    public var pending: Int
    /// Jobs a sender has taken and not yet finished.
    public var sending: Int
    /// Jobs the push service accepted.
    public var delivered: Int
    /// Jobs given up on: out of attempts, or the device disabled (`retryDeadPushes` revives them).
    public var dead: Int
    /// The mails (notification and account mails) still in the outbox.
    public var mails: MailStats
}

/// The mail outbox by state. A sent mail leaves the outbox, so there is no count of those
/// (`/metrics` counts attempts: `notification_mails_total`).
public struct MailStats: Codable, Sendable, Equatable {
    /// Mails waiting for their due time or for the dispatcher.
    public var pending: Int
    /// Mails the dispatcher is sending now.
    public var sending: Int
    /// Mails given up on: refused, or out of attempts (`retryDeadMails` revives them).
    public var dead: Int
}

extension ModerationService {
    /// How many push jobs and mails are in each state.
    public func pushStats() async throws -> PushDeliveryStats {
        try await database.reader.read { db in
            let pushes = try OutboxJobs.counts(in: "pushJob", db), mails = try OutboxJobs.counts(in: "mailJob", db)
            return PushDeliveryStats(
                pending: pushes["pending"] ?? 0, sending: pushes["sending"] ?? 0, delivered: pushes["delivered"] ?? 0, dead: pushes["dead"] ?? 0,
                mails: MailStats(pending: mails["pending"] ?? 0, sending: mails["sending"] ?? 0, dead: mails["dead"] ?? 0))
        }
    }

    /// Makes every dead push job due again, with a fresh count of attempts; answers how many.
    public func retryDeadPushes(by moderator: Moderator) async throws -> Int {
        try await reviveDead(in: "pushJob", by: moderator)
    }

    /// Makes every dead mail due again, with a fresh count of attempts; answers how many. An
    /// account mail among them goes with a fresh token (its row never held one).
    public func retryDeadMails(by moderator: Moderator) async throws -> Int {
        try await reviveDead(in: "mailJob", by: moderator)
    }

    /// Revives the dead rows of an outbox table, with an audit line naming the table.
    private func reviveDead(in table: String, by moderator: Moderator) async throws -> Int {
        let time = now()
        return try await database.writer.write { db in
            let count = try OutboxJobs.reviveDead(in: table, at: time.timeIntervalSince1970, db)
            try AuditLog.record("notification.retryDead", targetType: table, targetId: "dead", by: moderator.name,
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
