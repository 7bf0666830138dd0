import Foundation
import GRDB

/// What moderators do, whether from `meetupd admin` or over `/api/v1/admin`: one
/// implementation, every action in the audit log, every effect on a running server carried
/// by the change log. Users here; meetings, the database and statistics in extensions.
public struct ModerationService: Sendable {
    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates its actions (and the audit log) with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Users whose e-mail or display name contains `search` (all when nil), newest first.
    public func users(search: String? = nil, limit: Int = 50) async throws -> [ModeratedUser] {
        try await database.reader.read { db in
            let pattern = search.map { "%" + $0.replacingOccurrences(of: "%", with: "") + "%" }
            return try Row.fetchAll(db, sql: """
                SELECT \(ModeratedUser.columns) FROM user
                WHERE ? IS NULL OR email LIKE ? OR displayName LIKE ?
                ORDER BY createdAt DESC, id LIMIT ?
                """, arguments: [pattern, pattern, pattern, limit]).map(ModeratedUser.init(row:))
        }
    }

    /// One user, by id or e-mail address, with their sessions, devices, moderation history
    /// and the reports against them.
    public func user(_ reference: String) async throws -> ModeratedUserDetails {
        let time = now()
        return try await database.reader.read { db in
            let user = try Self.find(reference, in: db)
            let sessions = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM accessToken WHERE userId = ? AND expiresAt > ?", arguments: [user.id, time]) ?? 0
            let audit = try AuditLog.entries(limit: 20, targetId: user.id, in: db)
            let devices = try Row.fetchAll(
                db, sql: "SELECT \(ModeratedDevice.columns) FROM device WHERE userId = ? ORDER BY createdAt", arguments: [user.id]
            ).map(ModeratedDevice.init(row:))
            return ModeratedUserDetails(
                user: user, activeSessions: sessions, history: audit, devices: devices, reports: try Self.reports(against: user.id, in: db))
        }
    }

    /// Marks the address confirmed, as the mailed link would.
    public func confirm(_ reference: String, by moderator: Moderator) async throws -> ModeratedUser {
        try await change(reference, action: "user.confirm", by: moderator, reason: nil) { user, db, time in
            guard user.emailConfirmedAt == nil else { throw MeetError.noChange }
            try db.execute(sql: "UPDATE user SET emailConfirmedAt = ? WHERE id = ?", arguments: [time, user.id])
        }
    }

    /// Bans the user: their tokens stop working at once, their live sessions close (through
    /// the change log), login is refused — for good, or `until` a time, when the ban lapses by
    /// itself (``liftLapsedBans()``).
    public func ban(_ reference: String, reason: String, until: Date? = nil, by moderator: Moderator) async throws -> ModeratedUser {
        try await change(reference, action: "user.ban", by: moderator, reason: reason, detail: until.map { "until " + $0.ISO8601Format() }) {
            user, db, time in
            try Self.ban(user, reason: reason, until: until, by: moderator, in: db, at: time)
        }
    }

    /// Bans `user` in `db`'s transaction (the caller writes the audit line).
    static func ban(_ user: ModeratedUser, reason: String, until: Date? = nil, by moderator: Moderator, in db: Database, at time: Date) throws {
        guard !user.banned else { throw MeetError.noChange }
        guard user.id != moderator.userId else { throw MeetError.notOnYourself }
        if let until, until <= time { throw MeetError("moderation.banEndPassed", status: 422) }
        try db.execute(sql: "UPDATE user SET banned = 1, banReason = ?, bannedUntil = ? WHERE id = ?", arguments: [reason, until, user.id])
        try db.execute(sql: "DELETE FROM accessToken WHERE userId = ?", arguments: [user.id])
        try ChangeLog.record(.userBanned, subject: user.id, detail: reason, in: db, at: time)
    }

    /// Lifts a ban; the user signs in again.
    public func unban(_ reference: String, reason: String?, by moderator: Moderator) async throws -> ModeratedUser {
        try await change(reference, action: "user.unban", by: moderator, reason: reason) { user, db, _ in
            guard user.banned else { throw MeetError.noChange }
            try db.execute(sql: "UPDATE user SET banned = 0, banReason = NULL, bannedUntil = NULL WHERE id = ?", arguments: [user.id])
        }
    }

    /// Makes the user a moderator (`moderator`) or takes the role back (`user`).
    public func setRole(_ reference: String, to role: ModeratedUser.Role, by moderator: Moderator) async throws -> ModeratedUser {
        let action = role == .moderator ? "user.promote" : "user.demote"
        return try await change(reference, action: action, by: moderator, reason: nil) { user, db, _ in
            guard user.role != role else { throw MeetError.noChange }
            guard user.id != moderator.userId else { throw MeetError.notOnYourself }
            try db.execute(sql: "UPDATE user SET role = ? WHERE id = ?", arguments: [role.rawValue, user.id])
        }
    }

    /// Whether `userId` may use the moderators' REST API.
    public func isModerator(_ userId: String) async throws -> Bool {
        try await database.reader.read { db in
            try Bool.fetchOne(db, sql: "SELECT role = 'moderator' AND NOT banned FROM user WHERE id = ?", arguments: [userId]) ?? false
        }
    }

    /// The audit log, newest first.
    public func audit(limit: Int = 50, beforeId: Int64? = nil, targetId: String? = nil) async throws -> [AuditEntry] {
        try await database.reader.read { db in try AuditLog.entries(limit: limit, beforeId: beforeId, targetId: targetId, in: db) }
    }

    /// Applies `apply` to the user in one transaction with its audit line, and answers the
    /// user as they are after it.
    private func change(
        _ reference: String, action: String, by moderator: Moderator, reason: String?, detail: String? = nil,
        _ apply: @escaping @Sendable (ModeratedUser, Database, Date) throws -> Void
    ) async throws -> ModeratedUser {
        let time = now()
        return try await database.writer.write { db in
            let user = try Self.find(reference, in: db)
            try apply(user, db, time)
            try AuditLog.record(
                action, targetType: "user", targetId: user.id, by: moderator.name, reason: reason, detail: detail, in: db, at: time)
            return try Self.find(user.id, in: db)
        }
    }

    /// The user with this id or e-mail address.
    static func find(_ reference: String, in db: Database) throws -> ModeratedUser {
        let row = try Row.fetchOne(db, sql: "SELECT \(ModeratedUser.columns) FROM user WHERE id = ? OR email = ? LIMIT 1",
                                   arguments: [reference, reference.lowercased()])
        guard let row else { throw MeetError("user.notFound", status: 404) }
        return ModeratedUser(row: row)
    }
}

extension ChangeTopic {
    /// A moderator banned or deleted a user (subject: the user id, detail: the reason): their
    /// live sessions end.
    public static let userBanned = ChangeTopic(rawValue: "user.banned")
}

extension MeetError {
    /// The target is already in the state asked for (banned, confirmed, a moderator).
    static let noChange = MeetError("moderation.noChange", status: 409)
    /// A moderator may not ban or demote themselves.
    static let notOnYourself = MeetError("moderation.notOnYourself", status: 409)
}

extension ModerationService {
    /// Ends the live STOMP sessions of every user banned from now on — by this process or by
    /// `meetupd admin` — as the bans arrive through `changes`, with an ERROR naming the reason.
    public static func endSessionsOfBannedUsers(following changes: ChangeTail, in liveSessions: LiveSessions) {
        changes.subscribe(to: [.userBanned]) { bans in
            for ban in bans {
                liveSessions.endAll(ofUser: ban.subject, reason: "banned by a moderator: " + (ban.detail ?? "no reason given"))
            }
        }
    }
}
