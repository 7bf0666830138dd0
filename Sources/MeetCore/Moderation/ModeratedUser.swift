import Foundation
import GRDB

/// A user as moderators see them: the account's state, not the profile.
public struct ModeratedUser: Codable, Sendable, Equatable {
    /// Moderators may use `/api/v1/admin`.
    public enum Role: String, Codable, Sendable {
        case user, moderator
    }

    /// The user's id.
    public var id: String
    /// The sign-in address; only moderators see it here.
    public var email: String
    /// The name other users see.
    public var displayName: String
    /// `user`, or `moderator` for those who may use the admin API.
    public var role: Role
    /// Whether the email address has been confirmed.
    public var confirmed: Bool
    /// When the email address was confirmed; nil while it is not.
    public var emailConfirmedAt: Date?
    /// Whether the account is banned now (for good or until `bannedUntil`).
    public var banned: Bool
    /// What the moderator who banned them wrote, for other moderators.
    public var banReason: String?
    /// When a temporary ban lapses; nil for a ban for good (or no ban).
    public var bannedUntil: Date?
    /// When the account was created.
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
    /// The account itself.
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
    /// The device's id.
    public var id: String
    /// `apns` or `fcm`.
    public var pushService: String
    /// The app version it last registered with, if it said.
    public var appVersion: String?
    /// The language the device shows its notifications in (`en`, `uk-UA`).
    public var locale: String
    /// When it was registered.
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
