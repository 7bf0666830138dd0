import Foundation
import GRDB

/// Who acts as a moderator: a moderator's token over REST, or someone at the server's
/// terminal running `meetupd admin`.
public struct Moderator: Sendable, Equatable {
    /// How the audit log names them: `user:<id>` or `cli:<login>`.
    public var name: String
    /// The moderator's account, when they act with a token.
    public var userId: String?

    /// A moderator signed in as `userId`.
    public static func user(_ userId: String) -> Moderator {
        Moderator(name: "user:" + userId, userId: userId)
    }

    /// Someone at the terminal, named by their login.
    public static func terminal(login: String) -> Moderator {
        Moderator(name: "cli:" + login, userId: nil)
    }
}

/// One line of the audit log.
public struct AuditEntry: Codable, Sendable, Equatable {
    /// Grows with every entry, in the order the actions were taken.
    public var id: Int64
    /// `user:<id>` or `cli:<login>` (``Moderator/name``), or whatever names another kind of actor.
    public var actor: String
    /// What was done, dotted: `user.ban`, `meeting.cancel`, `report.resolve`.
    public var action: String
    /// What kind of thing was acted on: `user`, `meeting`, `report`, ...
    public var targetType: String
    /// The id of what was acted on.
    public var targetId: String
    /// Why, as the moderator wrote it; nil when none was given.
    public var reason: String?
    /// Anything else worth keeping (a role, a resolution), as text.
    public var detail: String?
    /// When it was done.
    public var createdAt: Date
}

/// The audit log: every moderator action (and every change of other privileged settings),
/// written in the transaction that makes it. Triggers refuse to update or delete a line.
public enum AuditLog {
    /// Appends a line in `db`'s current transaction.
    public static func record(
        _ action: String, targetType: String, targetId: String, by actor: String, reason: String? = nil, detail: String? = nil,
        in db: Database, at time: Date = Date()
    ) throws {
        try db.execute(sql: """
            INSERT INTO auditLog (actor, action, targetType, targetId, reason, detail, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [actor, action, targetType, targetId, reason, detail, time.timeIntervalSince1970])
    }

    /// The newest lines first, older than `beforeId` when given; only those about one target
    /// or of one action when asked.
    public static func entries(
        limit: Int, beforeId: Int64? = nil, targetId: String? = nil, action: String? = nil, in db: Database
    ) throws -> [AuditEntry] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM auditLog
            WHERE id < ? AND (? IS NULL OR targetId = ?) AND (? IS NULL OR action = ?)
            ORDER BY id DESC LIMIT ?
            """, arguments: [beforeId ?? Int64.max, targetId, targetId, action, action, limit]).map { row in
            AuditEntry(
                id: row["id"], actor: row["actor"], action: row["action"], targetType: row["targetType"], targetId: row["targetId"],
                reason: row["reason"], detail: row["detail"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
        }
    }
}
