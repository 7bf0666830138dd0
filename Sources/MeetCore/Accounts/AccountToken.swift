import Foundation
import GRDB

/// What a mailed account token is for; also what an account mail in the outbox is.
public enum AccountTokenPurpose: String, Codable, Sendable, CaseIterable {
    /// Confirming the address the account was registered with.
    case confirmEmail
    /// Setting a new password without the old one.
    case resetPassword

    /// How long a mailed token stays usable.
    var lifetime: TimeInterval {
        switch self {
        case .confirmEmail: 24 * 3600
        case .resetPassword: 3600
        }
    }
}

/// A single-use secret mailed to a user to confirm the address or reset the password,
/// stored only as its SHA-256.
struct AccountToken: Codable, Sendable, FetchableRecord, PersistableRecord {
    typealias Purpose = AccountTokenPurpose

    static let databaseTableName = "accountToken"

    var tokenHash: Data
    var userId: String
    var purpose: Purpose
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?
}
