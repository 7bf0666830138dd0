import Foundation
import GRDB

/// The mail outbox as the mail dispatcher sees it: claims due mails, and records what became
/// of each (sent mails leave the queue, failed ones come back after the retry policy's backoff,
/// refused or exhausted ones stay `dead` with their reason). Every step is one transaction.
public struct MailQueue: Sendable {
    let database: AppDatabase
    let retry: PushRetryPolicy
    let now: @Sendable () -> Date

    /// `retry` is the pushes' policy type: mails back off the same way.
    public init(database: AppDatabase, retry: PushRetryPolicy = PushRetryPolicy(), now: @escaping @Sendable () -> Date) {
        self.database = database
        self.retry = retry
        self.now = now
    }

    /// Puts back the mails a crash left claimed: they may or may not have left, so they go
    /// again (a repeated mail is the lesser harm than a lost one). Call it once, before the first claim.
    @discardableResult
    public func requeueInterrupted() async throws -> Int {
        try await database.writer.write { [now] db in
            try db.execute(sql: "UPDATE mailJob SET state = 'pending', updatedAt = ? WHERE state = 'sending'",
                           arguments: [now().timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// Claims up to `limit` due mails, oldest due first, counting the attempt; each with its
    /// notification and recipient.
    public func claim(limit: Int) async throws -> [MailDelivery] {
        try await database.writer.write { [now] db in
            let time = now().timeIntervalSince1970
            let rows = try Row.fetchAll(db, sql: """
                UPDATE mailJob SET state = 'sending', attempts = attempts + 1, updatedAt = ?
                WHERE id IN (SELECT id FROM mailJob WHERE state = 'pending' AND dueAt <= ? ORDER BY dueAt, id LIMIT ?)
                RETURNING id, notificationId, attempts
                """, arguments: [time, time, limit])
            return try rows.compactMap { row in
                guard let notification = try InboxNotification.filter(Column("id") == row["notificationId"] as String).fetchOne(db),
                      let recipient = try User.fetchOne(db, key: notification.userId) else { return nil }
                return MailDelivery(jobId: row["id"], attempts: row["attempts"], notification: notification, recipient: recipient)
            }
        }
    }

    /// The earliest time a pending mail falls due, if any.
    public func nextDue() async throws -> Date? {
        try await database.reader.read { db in
            try Double.fetchOne(db, sql: "SELECT min(dueAt) FROM mailJob WHERE state = 'pending'").map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Records what became of one claimed mail.
    public func record(_ delivery: MailDelivery, _ outcome: MailOutcome) async throws {
        try await database.writer.write { [now, retry] db in
            let time = now().timeIntervalSince1970
            switch outcome {
            case .sent:
                try db.execute(sql: "DELETE FROM mailJob WHERE id = ?", arguments: [delivery.jobId])
            case .retry(let reason) where delivery.attempts < retry.maximumAttempts:
                try db.execute(sql: "UPDATE mailJob SET state = 'pending', dueAt = ?, updatedAt = ?, lastError = ? WHERE id = ?",
                               arguments: [time + retry.delay(afterAttempt: delivery.attempts), time, reason, delivery.jobId])
            case .retry(let reason), .refused(let reason):
                try db.execute(sql: "UPDATE mailJob SET state = 'dead', updatedAt = ?, lastError = ? WHERE id = ?",
                               arguments: [time, reason, delivery.jobId])
            }
        }
    }
}

/// One claimed mail with what it is made of.
public struct MailDelivery: Sendable {
    /// The row id of its `mailJob`, for recording the outcome.
    public var jobId: Int64
    /// Attempts started so far, this one included.
    public var attempts: Int
    /// The notification the mail tells of.
    public var notification: InboxNotification
    /// Whom it goes to: their address, language and name.
    public var recipient: User
}

/// What became of one attempt to send a mail.
public enum MailOutcome: Sendable, Equatable {
    /// The transport took it.
    case sent
    /// A transient failure (the SMTP server away or answering 4xx): tried again later.
    case retry(reason: String)
    /// Refused for good (a 5xx): not tried again.
    case refused(reason: String)
}
