import Foundation
import GRDB

/// A person with an account. The password hash never leaves MeetCore.
public struct User: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The `user` table.
    public static let databaseTableName = "user"

    /// Opaque id; other records name the user by it.
    public var id: String
    /// Lower-cased address; unique.
    public var email: String
    /// The name other users see.
    public var displayName: String
    /// Language tag for mails and pushes (`en`, `uk`).
    public var locale: String
    var passwordHash: String
    /// When the email address was confirmed; nil until then (an unconfirmed user cannot log in).
    public var emailConfirmedAt: Date?
    /// A banned user's tokens stop working at once and login is refused.
    public var banned: Bool
    /// When the account was registered.
    public var createdAt: Date

    /// Whether the email address has been confirmed.
    public var isConfirmed: Bool { emailConfirmedAt != nil }
}
