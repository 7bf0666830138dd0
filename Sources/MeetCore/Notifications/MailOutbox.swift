import Foundation
import GRDB

/// The mails that go with some notifications (an invitation, a cancelled meeting), queued in
/// the transaction that writes the notification: the mail exists exactly when the change was
/// committed, and a failed send is tried again (``MailQueue``) rather than lost.
enum MailOutbox {
    /// Queues the mail of `notification`, if its kind is mailed, its user confirmed their
    /// address and did not turn the topic off. Quiet hours do not hold mail: mail does not ring.
    static func enqueue(_ notification: InboxNotification, at now: Double, _ db: Database) throws {
        guard let topic = EmailSettings.Topic(kind: notification.kind) else { return }
        try db.execute(sql: """
            INSERT INTO mailJob (notificationId, state, attempts, dueAt, updatedAt)
            SELECT ?, 'pending', 0, ?, ? FROM user
            WHERE id = ? AND emailConfirmedAt IS NOT NULL AND NOT banned
              AND NOT EXISTS (SELECT 1 FROM emailOptOut WHERE userId = user.id AND topic = ?)
            """, arguments: [notification.id, now, now, notification.userId, topic.rawValue])
    }
}
