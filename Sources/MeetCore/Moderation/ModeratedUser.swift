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
    /// When a temporary ban lapses; nil for a ban for good (or no ban).
    public var bannedUntil: Date?
    public var createdAt: Date

    static let columns = "id, email, displayName, role, emailConfirmedAt, banned, banReason, bannedUntil, createdAt"

    init(row: Row) {
        id = row["id"]
        email = row["email"]
        displayName = row["displayName"]
        role = Role(rawValue: row["role"]) ?? .user
        emailConfirmedAt = row["emailConfirmedAt"]
        confirmed = emailConfirmedAt != nil
        banned = row["banned"]
        banReason = row["banReason"]
        bannedUntil = row["bannedUntil"]
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
    /// The phones they receive pushes on.
    public var devices: [ModeratedDevice]
    /// Reports about them, their messages and the meetings they organize, newest first.
    public var reports: [Report]
}

/// A user's registered phone as moderators see it: which push service, which app, whether
/// pushes still reach it (never its push token).
public struct ModeratedDevice: Codable, Sendable, Equatable {
    public var id: String
    /// `apns` or `fcm`.
    public var pushService: String
    public var appVersion: String?
    public var locale: String
    public var createdAt: Date
    /// When the push service refused the token for good.
    public var disabledAt: Date?

    static let columns = "id, pushService, appVersion, locale, createdAt, disabledAt"

    init(row: Row) {
        id = row["id"]
        pushService = row["pushService"]
        appVersion = row["appVersion"]
        locale = row["locale"]
        createdAt = row["createdAt"]
        disabledAt = row["disabledAt"]
    }
}
