import Foundation
import GRDB

/// The mail outbox as the mail dispatcher sees it (notification and account mails): claims due
/// mails, and records what became of each (sent mails leave the queue, failed ones come back after the retry policy's backoff,
/// refused or exhausted ones stay `dead` with their reason). Every step is one transaction.
public struct MailQueue: OutboxQueue {
    /// The `mailJob` table's bookkeeping.
    public let jobs: OutboxJobs

    /// `retry` is the pushes' policy type: mails back off the same way.
    public init(database: AppDatabase, retry: PushRetryPolicy = PushRetryPolicy(), now: @escaping @Sendable () -> Date) {
        jobs = OutboxJobs(table: "mailJob", database: database, retry: retry, now: now)
    }

    /// Claims up to `limit` due mails, oldest due first, counting the attempt; each with its
    /// recipient and content. An account mail gets its fresh token here (``AccountMailOutbox``);
    /// one that is not to go any more (address confirmed meanwhile, account banned) is dropped.
    public func claim(limit: Int) async throws -> [MailDelivery] {
        try await jobs.database.writer.write { [jobs] db in
            let now = jobs.now()
            let rows = try jobs.claimDue(limit: limit, returning: "id, notificationId, userId, purpose, attempts",
                                         at: now.timeIntervalSince1970, in: db)
            return try rows.compactMap { row in
                let jobId: Int64 = row["id"], attempts: Int = row["attempts"]
                if let purpose = (row["purpose"] as String?).flatMap(AccountTokenPurpose.init(rawValue:)) {
                    guard let (recipient, mail) = try AccountMailOutbox.claimed(purpose, to: row["userId"], at: now, in: db) else {
                        try db.execute(sql: "DELETE FROM mailJob WHERE id = ?", arguments: [jobId])
                        return nil
                    }
                    return MailDelivery(jobId: jobId, attempts: attempts, recipient: recipient, content: .account(mail))
                }
                guard let notification = try InboxNotification.filter(Column("id") == row["notificationId"] as String?).fetchOne(db),
                      let recipient = try User.fetchOne(db, key: notification.userId) else { return nil }
                return MailDelivery(jobId: jobId, attempts: attempts, recipient: recipient, content: .notification(notification))
            }
        }
    }

    /// Records what became of one claimed mail.
    public func record(_ delivery: MailDelivery, _ outcome: MailOutcome) async throws {
        try await jobs.database.writer.write { [now = jobs.now, retry = jobs.retry] db in
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
    /// Whom it goes to: their address, language and name.
    public var recipient: User
    /// What the mail is.
    public var content: Content

    /// What a mail in the outbox is made from.
    public enum Content: Sendable {
        /// The mail of a notification (an invitation, a meeting moved or cancelled).
        case notification(InboxNotification)
        /// An account mail with the token it hands over.
        case account(AccountMail)
    }
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
