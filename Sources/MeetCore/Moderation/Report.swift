import Foundation
import GRDB

/// A user's report of abuse: a user, a meeting or a chat message, and why.
public struct Report: Codable, Sendable, Equatable {
    /// What a report is about.
    public enum TargetType: String, Codable, Sendable, CaseIterable {
        case user, meeting, message
    }

    /// How a moderator closed a report.
    public enum Resolution: String, Codable, Sendable, CaseIterable {
        /// Nothing wrong.
        case dismiss
        /// Wrong, but a warning (recorded) is enough.
        case warn
        /// The reported message is redacted.
        case redact
        /// The responsible user (the user reported, the message's sender, the meeting's
        /// organizer) is banned.
        case ban
    }

    /// Opaque id, used in moderators' routes.
    public var id: String
    /// The user who filed it; only they and moderators read the report.
    public var reporterId: String
    /// Whether it is about a user, a meeting or a message.
    public var targetType: TargetType
    /// Id of the reported user, meeting or message.
    public var targetId: String
    /// Why, in the reporter's words; 1–200 characters.
    public var reason: String
    /// More context from the reporter, at most 2000 characters.
    public var details: String?
    /// `open` or `resolved`.
    public var status: String
    /// How a moderator closed it; nil while open.
    public var resolution: Resolution?
    /// When a moderator resolved it; nil while open.
    public var resolvedAt: Date?
    /// When it was filed.
    public var createdAt: Date

    static let columns = "id, reporterId, targetType, targetId, reason, details, status, resolution, resolvedAt, createdAt"

    init(row: Row) {
        id = row["id"]
        reporterId = row["reporterId"]
        targetType = TargetType(rawValue: row["targetType"]) ?? .user
        targetId = row["targetId"]
        reason = row["reason"]
        details = row["details"]
        status = row["status"]
        resolution = (row["resolution"] as String?).flatMap(Resolution.init(rawValue:))
        resolvedAt = (row["resolvedAt"] as Double?).map(Date.init(timeIntervalSince1970:))
        createdAt = Date(timeIntervalSince1970: row["createdAt"])
    }
}

/// What a user sends to report something.
public struct ReportDraft: Sendable {
    /// `user`, `meeting` or `message`; anything else is `field.invalid`.
    public var targetType: String
    /// Id of the user, meeting or message; it must be one the reporter can see.
    public var targetId: String
    /// Why, in the reporter's words; required, at most 200 characters.
    public var reason: String
    /// More context, at most 2000 characters.
    public var details: String?

    /// Makes a draft from the fields a client sent; ``ReportService/file(_:by:)`` checks them.
    public init(targetType: String, targetId: String, reason: String, details: String?) {
        self.targetType = targetType
        self.targetId = targetId
        self.reason = reason
        self.details = details
    }
}

/// Reports from users' side: filing one and reading one's own.
public struct ReportService: Sendable {
    /// The longest `reason` and `details` accepted, in characters.
    public static let maxReason = 200
    /// See ``maxReason``.
    public static let maxDetails = 2000

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates reports with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Files a report; `report.targetNotFound` for what the reporter cannot see,
    /// `report.alreadyOpen` while their earlier report of the same target is open.
    public func file(_ draft: ReportDraft, by reporterId: String) async throws -> Report {
        let targetType = try Self.check(draft)
        let time = now()
        return try await database.writer.write { db in
            try Self.requireVisible(targetType, draft.targetId, to: reporterId, in: db)
            let id = RandomToken.id()
            do {
                try db.execute(sql: """
                    INSERT INTO report (id, reporterId, targetType, targetId, reason, details, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, reporterId, targetType.rawValue, draft.targetId, draft.reason, draft.details,
                                     time.timeIntervalSince1970])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw MeetError("report.alreadyOpen", status: 409)
            }
            return try Self.find(id, in: db)
        }
    }

    /// The reporter's own reports, newest first.
    public func reports(by reporterId: String, limit: Int = 100) async throws -> [Report] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Report.columns) FROM report WHERE reporterId = ? ORDER BY createdAt DESC, id LIMIT ?",
                             arguments: [reporterId, limit]).map(Report.init(row:))
        }
    }

    private static func check(_ draft: ReportDraft) throws -> Report.TargetType {
        var problems: [MeetError.FieldProblem] = []
        let targetType = Report.TargetType(rawValue: draft.targetType)
        if targetType == nil { problems.append(.init(field: "targetType", code: "field.invalid")) }
        if draft.targetId.isEmpty || draft.targetId.count > 100 { problems.append(.init(field: "targetId", code: "field.invalid")) }
        let reason = draft.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if reason.isEmpty { problems.append(.init(field: "reason", code: "field.required")) }
        if draft.reason.count > maxReason {
            problems.append(.init(field: "reason", code: "field.tooLong", arguments: ["maximum": String(maxReason)]))
        }
        if (draft.details?.count ?? 0) > maxDetails {
            problems.append(.init(field: "details", code: "field.tooLong", arguments: ["maximum": String(maxDetails)]))
        }
        guard problems.isEmpty, let targetType else { throw MeetError.invalidFields(problems) }
        return targetType
    }

    /// Refuses, as if it did not exist, a target the reporter may not see: a hidden or
    /// blocked user (or themselves), a private meeting they have no part in, a message of a
    /// meeting room they are not in or of a direct conversation that is not theirs.
    private static func requireVisible(_ type: Report.TargetType, _ id: String, to reporterId: String, in db: Database) throws {
        let notFound = MeetError("report.targetNotFound", status: 404)
        switch type {
        case .user:
            let visible = try SQLRequest<Bool>(literal: """
                SELECT EXISTS (SELECT 1 FROM user WHERE id = \(id) AND id <> \(reporterId) AND \(UserVisibility.visible(to: reporterId)))
                """).fetchOne(db) ?? false
            guard visible else { throw notFound }
        case .meeting:
            do { _ = try MeetingRecord.visible(id, to: reporterId, in: db) } catch let error as MeetError where error.status == 404 {
                throw notFound
            }
        case .message:
            guard let room = try Row.fetchOne(db, sql: """
                SELECT chatRoom.meetingId, direct.userA, direct.userB
                FROM chatMessage JOIN chatRoom ON chatRoom.id = chatMessage.roomId
                LEFT JOIN directConversation AS direct ON direct.roomId = chatMessage.roomId
                WHERE chatMessage.id = ?
                """, arguments: [id]) else { throw notFound }
            guard let meetingId = room["meetingId"] as String? else {
                // A direct message: either of the two may report it.
                guard [room["userA"], room["userB"]].contains(reporterId as String?) else { throw notFound }
                return
            }
            do {
                let role = try MeetingAccess.role(of: reporterId, inMeeting: meetingId, in: db)
                guard role == .organizer || role == .member else { throw notFound }
            } catch let error as MeetError where error.status == 404 {
                throw notFound
            }
        }
    }

    static func find(_ id: String, in db: Database) throws -> Report {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(Report.columns) FROM report WHERE id = ?", arguments: [id]) else {
            throw MeetError("report.notFound", status: 404)
        }
        return Report(row: row)
    }
}
