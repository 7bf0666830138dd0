import Foundation
import GRDB

/// A meeting as moderators list it, private ones included.
public struct ModeratedMeeting: Codable, Sendable, Equatable {
    /// The meeting's id.
    public var id: String
    /// The meeting's title.
    public var title: String
    /// The organizer's free text; may be empty.
    public var description: String
    /// The user who created it.
    public var organizerId: String
    /// `public` or `private`.
    public var visibility: String
    /// `scheduled`, or `cancelled` once the organizer or a moderator called it off.
    public var status: String
    /// When it begins.
    public var startsAt: Date
    /// How many members have joined, the organizer included.
    public var memberCount: Int
    /// When it was created.
    public var createdAt: Date

    static let columns = "id, title, description, organizerId, visibility, cancelledAt, startsAt, memberCount, createdAt"

    init(row: Row) {
        id = row["id"]
        title = row["title"]
        description = row["description"]
        organizerId = row["organizerId"]
        visibility = row["visibility"]
        status = row["cancelledAt"] == nil ? "scheduled" : "cancelled"
        startsAt = Date(timeIntervalSince1970: row["startsAt"])
        memberCount = row["memberCount"]
        createdAt = Date(timeIntervalSince1970: row["createdAt"])
    }
}

extension ModerationService {
    /// Meetings whose title contains `search` (all when nil), newest first; cancelled ones
    /// only when asked.
    public func meetings(search: String? = nil, includeCancelled: Bool = false, limit: Int = 50) async throws -> [ModeratedMeeting] {
        try await database.reader.read { db in
            let pattern = search.map { "%" + $0.replacingOccurrences(of: "%", with: "") + "%" }
            return try Row.fetchAll(db, sql: """
                SELECT \(ModeratedMeeting.columns) FROM meeting
                WHERE (? IS NULL OR title LIKE ?) AND (? OR cancelledAt IS NULL)
                ORDER BY number DESC LIMIT ?
                """, arguments: [pattern, pattern, includeCancelled, limit]).map(ModeratedMeeting.init(row:))
        }
    }

    /// One meeting, private or not.
    public func meeting(_ id: String) async throws -> ModeratedMeeting {
        try await database.reader.read { db in try Self.findMeeting(id, in: db) }
    }

    /// Cancels a meeting as its organizer would: members and invitees are told, and it
    /// leaves the feed of a running server at once (the change log carries `meeting` rows).
    public func cancelMeeting(_ id: String, reason: String, by moderator: Moderator) async throws -> ModeratedMeeting {
        let time = now()
        return try await database.writer.write { db in
            guard var record = try MeetingRecord.filter(Column("id") == id).fetchOne(db) else { throw MeetError.meetingNotFound }
            try MeetingService.markCancelled(&record, by: moderator.userId ?? moderator.name, at: time, in: db)
            try AuditLog.record("meeting.cancel", targetType: "meeting", targetId: id, by: moderator.name, reason: reason, in: db, at: time)
            return try Self.findMeeting(id, in: db)
        }
    }

    static func findMeeting(_ id: String, in db: Database) throws -> ModeratedMeeting {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(ModeratedMeeting.columns) FROM meeting WHERE id = ?", arguments: [id]) else {
            throw MeetError.meetingNotFound
        }
        return ModeratedMeeting(row: row)
    }
}
