import Foundation
import GRDB

/// A person with an account. The password hash never leaves MeetCore.
public struct User: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "user"

    public var id: String
    /// Lower-cased address; unique.
    public var email: String
    public var displayName: String
    /// Language tag for mails and pushes (`en`, `uk`).
    public var locale: String
    var passwordHash: String
    public var emailConfirmedAt: Date?
    /// A banned user's tokens stop working at once and login is refused.
    public var banned: Bool
    public var createdAt: Date

    public var isConfirmed: Bool { emailConfirmedAt != nil }
}
