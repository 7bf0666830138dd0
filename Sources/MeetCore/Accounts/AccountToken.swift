import Foundation
import GRDB

/// A single-use secret mailed to a user to confirm the address or reset the password,
/// stored only as its SHA-256.
struct AccountToken: Codable, Sendable, FetchableRecord, PersistableRecord {
    enum Purpose: String, Codable, Sendable {
        case confirmEmail
        case resetPassword

        /// How long a mailed token stays usable.
        var lifetime: TimeInterval {
            switch self {
            case .confirmEmail: 24 * 3600
            case .resetPassword: 3600
            }
        }
    }

    static let databaseTableName = "accountToken"

    var tokenHash: Data
    var userId: String
    var purpose: Purpose
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?
}
