import Foundation
import GRDB

/// A bearer token, stored only as the SHA-256 of the secret handed to the client.
struct AccessToken: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "accessToken"

    var tokenHash: Data
    var userId: String
    var createdAt: Date
    var expiresAt: Date
    var lastUsedAt: Date
}
