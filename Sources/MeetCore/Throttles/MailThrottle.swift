import Foundation
import GRDB

/// How many mails the service sends to one address, and because of one client address, in a
/// window: without it, registration and forgotten-password requests turn the service into a
/// way to flood a stranger's inbox.
///
/// Counted in SQLite, in the transaction that decides to send, so that a restart does not
/// reset the counts and concurrent requests cannot both take the last slot.
public struct MailThrottle: Sendable {
    /// Which limit held a mail back.
    public enum Limit: String, Sendable {
        /// Too many mails to this address.
        case recipient
        /// Too many mails asked for from this client address.
        case client
    }

    /// At most this many mails to one address within ``window``.
    public var perRecipient: Int
    /// At most this many mails asked for from one client address within ``window``.
    public var perClient: Int
    /// The sliding window, in seconds.
    public var window: TimeInterval

    /// Limits of `perRecipient` mails per address and `perClient` per client address within `window` seconds.
    public init(perRecipient: Int = 3, perClient: Int = 10, window: TimeInterval = 3600) {
        self.perRecipient = perRecipient
        self.perClient = perClient
        self.window = window
    }

    /// A mail held back: the limit it is over and the seconds until a slot frees up.
    public struct Refusal: Sendable, Equatable {
        /// Which limit the mail is over.
        public var limit: Limit
        /// Seconds until a slot frees up under that limit.
        public var retryAfter: TimeInterval
    }

    /// Notes a mail to `recipient` and returns `nil` if it may go, or the refusal (and then
    /// notes nothing). `client` is `nil` when the client's address is unknown.
    func admit(to recipient: String, from client: String?, at now: Date, in db: Database) throws -> Refusal? {
        let since = now.addingTimeInterval(-window)
        try db.execute(sql: "DELETE FROM mailSend WHERE sentAt <= ?", arguments: [since])
        var keys: [(key: String, limit: Limit, maximum: Int)] = [("to:" + recipient, .recipient, perRecipient)]
        if let client { keys.append(("from:" + client, .client, perClient)) }
        for (key, limit, maximum) in keys {
            let sent = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), MIN(sentAt) FROM mailSend WHERE key = ? AND sentAt > ?", arguments: [key, since])
            if let sent, sent[0] as Int >= maximum, let oldest = sent[1] as Date? {
                return Refusal(limit: limit, retryAfter: max(1, window - now.timeIntervalSince(oldest)))
            }
        }
        for (key, _, _) in keys {
            try db.execute(sql: "INSERT INTO mailSend (key, sentAt) VALUES (?, ?)", arguments: [key, now])
        }
        return nil
    }
}
