import Foundation
import GRDB

extension ModerationService {
    /// Reports, newest first; only open ones when asked.
    public func reports(openOnly: Bool = false, limit: Int = 50) async throws -> [Report] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Report.columns) FROM report WHERE NOT ? OR status = 'open' ORDER BY createdAt DESC, id LIMIT ?
                """, arguments: [openOnly, limit]).map(Report.init(row:))
        }
    }

    /// One report, with the reported message when it is about one (a direct message is read
    /// nowhere else by moderators).
    public func report(_ id: String) async throws -> ReportDetails {
        try await database.reader.read { db in
            let report = try ReportService.find(id, in: db)
            let message = report.targetType == .message ? try Self.reportedMessage(report.targetId, in: db) : nil
            return ReportDetails(report: report, roomId: message?.roomId, message: message?.message)
        }
    }

    /// The message `id` as moderators read it, with its room.
    private static func reportedMessage(_ id: String, in db: Database) throws -> (message: ModeratedMessage, roomId: String)? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT \(ModeratedMessage.columns), chatRoom.id AS roomId
            FROM chatMessage JOIN chatRoom ON chatRoom.id = chatMessage.roomId LEFT JOIN user ON user.id = chatMessage.senderId
            WHERE chatMessage.id = ?
            """, arguments: [id]) else { return nil }
        return (ModeratedMessage(row: row), row["roomId"])
    }

    /// Closes the report — and every other open report of the same target, one decision for
    /// all — with `action`: `ban` bans the responsible user (the user reported, the message's
    /// sender, the meeting's organizer) and `redact` redacts the reported message, in the same
    /// transaction.
    public func resolve(_ id: String, action: Report.Resolution, note: String?, by moderator: Moderator) async throws -> Report {
        let time = now()
        return try await database.writer.write { db in
            let report = try ReportService.find(id, in: db)
            guard report.status == "open" else { throw MeetError("report.resolved", status: 409) }
            switch action {
            case .dismiss, .warn:
                break
            case .redact:
                guard report.targetType == .message else { throw MeetError("report.actionUnavailable", status: 409) }
                try Self.redact(report.targetId, reason: note ?? report.reason, by: moderator, in: db, at: time)
            case .ban:
                let culprit = try Self.responsibleUser(of: report, in: db)
                let reason = note ?? report.reason
                try Self.ban(try Self.find(culprit, in: db), reason: reason, by: moderator, in: db, at: time)
                try AuditLog.record("user.ban", targetType: "user", targetId: culprit, by: moderator.name, reason: reason,
                                    detail: "report \(report.id)", in: db, at: time)
            }
            try db.execute(sql: """
                UPDATE report SET status = 'resolved', resolution = ?, resolvedBy = ?, resolvedAt = ?
                WHERE status = 'open' AND targetType = ? AND targetId = ?
                """, arguments: [action.rawValue, moderator.name, time.timeIntervalSince1970, report.targetType.rawValue, report.targetId])
            try AuditLog.record("report.resolve", targetType: "report", targetId: report.id, by: moderator.name, reason: note,
                                detail: action.rawValue, in: db, at: time)
            return try ReportService.find(id, in: db)
        }
    }

    /// Whom a ban for this report falls on.
    private static func responsibleUser(of report: Report, in db: Database) throws -> String {
        let sql = switch report.targetType {
        case .user: "SELECT id FROM user WHERE id = ?"
        case .message: "SELECT senderId FROM chatMessage WHERE id = ?"
        case .meeting: "SELECT organizerId FROM meeting WHERE id = ?"
        }
        guard let userId = try String.fetchOne(db, sql: sql, arguments: [report.targetId]) else {
            throw MeetError("user.notFound", status: 404)
        }
        return userId
    }

    /// The latest reports that make `userId` responsible: of them, of a message they sent, of a
    /// meeting they organize (each report checked by primary key: the reports are few).
    static func reports(against userId: String, limit: Int = 20, in db: Database) throws -> [Report] {
        try Row.fetchAll(db, sql: """
            SELECT \(Report.columns) FROM report
            WHERE (targetType = 'user' AND targetId = ?1)
               OR (targetType = 'message' AND EXISTS (SELECT 1 FROM chatMessage WHERE id = report.targetId AND senderId = ?1))
               OR (targetType = 'meeting' AND EXISTS (SELECT 1 FROM meeting WHERE id = report.targetId AND organizerId = ?1))
            ORDER BY createdAt DESC LIMIT ?2
            """, arguments: [userId, limit]).map(Report.init(row:))
    }
}
