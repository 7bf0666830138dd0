import Foundation
import GRDB

/// A user as moderators see them: the account's state, not the profile.
public struct ModeratedUser: Codable, Sendable, Equatable {
    /// Moderators may use `/api/v1/admin`.
    public enum Role: String, Codable, Sendable {
        case user, moderator
    }

    public var id: String
    public var email: String
    public var displayName: String
    public var role: Role
    public var confirmed: Bool
    public var emailConfirmedAt: Date?
    public var banned: Bool
    public var banReason: String?
    public var createdAt: Date

    static let columns = "id, email, displayName, role, emailConfirmedAt, banned, banReason, createdAt"

    init(row: Row) {
        id = row["id"]
        email = row["email"]
        displayName = row["displayName"]
        role = Role(rawValue: row["role"]) ?? .user
        emailConfirmedAt = row["emailConfirmedAt"]
        confirmed = emailConfirmedAt != nil
        banned = row["banned"]
        banReason = row["banReason"]
        createdAt = row["createdAt"]
    }
}

/// One user with what a moderator looks at before acting.
public struct ModeratedUserDetails: Codable, Sendable, Equatable {
    public var user: ModeratedUser
    /// Signed-in sessions (unexpired tokens).
    public var activeSessions: Int
    /// The latest moderator actions about them, newest first.
    public var history: [AuditEntry]
}
