import Foundation
import GRDB

/// Account mails (address confirmation, password reset) go through the mail outbox like
/// notification mails, with its retries, but their secret never does: a queued row names only
/// the user and the purpose. The token is made when the dispatcher claims the row (its hash
/// stored in `accountToken` as always) and lives in memory only while the mail is rendered and
/// sent. A retry, a mail requeued after a crash or a revived dead one carries a fresh token;
/// a token whose mail never left is known to nobody and expires unused.
enum AccountMailOutbox {
    /// Queues the account mail of `purpose` to `userId`, due at once.
    static func enqueue(_ purpose: AccountTokenPurpose, to userId: String, at now: Date, in db: Database) throws {
        let time = now.timeIntervalSince1970
        try db.execute(sql: "INSERT INTO mailJob (userId, purpose, state, attempts, dueAt, updatedAt) VALUES (?, ?, 'pending', 0, ?, ?)",
                       arguments: [userId, purpose.rawValue, time, time])
    }

    /// The recipient and content of a claimed account mail with its fresh token, or nil when it
    /// is not to go any more: the account is banned, or its address was confirmed meanwhile.
    static func claimed(_ purpose: AccountTokenPurpose, to userId: String, at now: Date, in db: Database) throws -> (User, AccountMail)? {
        guard let user = try User.fetchOne(db, key: userId), !user.banned,
              !(purpose == .confirmEmail && user.isConfirmed) else { return nil }
        let token = RandomToken.secret()
        try AccountService.issue(token, purpose, for: userId, at: now, in: db)
        return (user, AccountMail(purpose: purpose, token: token))
    }
}

/// An account mail being sent: what it is for, and the token it carries (only in memory).
public struct AccountMail: Sendable, Equatable {
    /// Confirmation or password reset.
    public var purpose: AccountTokenPurpose
    /// The secret the mail hands over; only its hash is stored.
    public var token: String
}
