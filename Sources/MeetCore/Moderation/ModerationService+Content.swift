import Foundation
import GRDB

/// A chat message as moderators read it, deleted and redacted ones included.
public struct ModeratedMessage: Codable, Sendable, Equatable {
    /// The message's id, as reports name it.
    public var id: String
    /// Its place in the room.
    public var seq: Int64
    /// `message`, `edited`, `deleted` or `system` (see ``ChatMessage/Kind``).
    public var type: String
    /// Nil once the sender's account was deleted.
    public var senderId: String?
    /// The sender's current display name.
    public var senderName: String?
    /// The text; nil when there is none (a system message, a deleted or redacted one).
    public var text: String?
    /// When the server stored it.
    public var sentAt: Date
    /// When it was deleted by its sender or redacted; nil while it stands.
    public var deletedAt: Date?

    /// The columns ``init(row:)`` reads, from `chatMessage` LEFT JOIN `user` on the sender.
    static let columns = "chatMessage.id, seq, type, senderId, user.displayName, text, sentAt, deletedAt"

    init(row: Row) {
        id = row[0]
        seq = row[1]
        type = row[2]
        senderId = row[3]
        senderName = row[4]
        text = row[5]
        sentAt = Date(timeIntervalSince1970: row[6])
        deletedAt = (row[7] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}

/// A report as a moderator opens it: the report, and for a message report the message and
/// its room (`meeting:{id}` or `direct:{userA}:{userB}`), both null when it is gone.
public struct ReportDetails: Encodable, Sendable, Equatable {
    /// The report itself.
    public var report: Report
    /// The room of a reported message; null for other reports or when the message is gone.
    public var roomId: String?
    /// The reported message; null for other reports or when the message is gone.
    public var message: ModeratedMessage?

    private enum Key: String, CodingKey { case roomId, message }

    /// The report's fields flat beside `roomId` and `message`, written even when null.
    public func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(roomId, forKey: .roomId)
        try container.encode(message, forKey: .message)
    }
}

extension ModerationService {
    /// Messages of a meeting's room in order: the last `limit`, or those around `seq`.
    public func messages(ofMeeting meetingId: String, around seq: Int64? = nil, limit: Int = 50) async throws -> [ModeratedMessage] {
        try await database.reader.read { db in
            _ = try Self.findMeeting(meetingId, in: db)
            let last = try Int64.fetchOne(db, sql: "SELECT lastSeq FROM chatRoom WHERE meetingId = ?", arguments: [meetingId]) ?? 0
            let upper = seq.map { $0 + Int64(limit / 2) } ?? last
            return try Row.fetchAll(db, sql: """
                SELECT \(ModeratedMessage.columns)
                FROM chatMessage JOIN chatRoom ON chatRoom.id = chatMessage.roomId LEFT JOIN user ON user.id = chatMessage.senderId
                WHERE chatRoom.meetingId = ? AND seq <= ? ORDER BY seq DESC LIMIT ?
                """, arguments: [meetingId, upper, limit]).reversed().map(ModeratedMessage.init(row:))
        }
    }

    /// Deletes a meeting with its members, invitations and chat room; it leaves a running
    /// server's feed at once (the `meeting` trigger logs the delete), and its members' room
    /// subscriptions end (`meeting.deleted`).
    public func deleteMeeting(_ id: String, reason: String, by moderator: Moderator) async throws {
        let time = now()
        try await database.writer.write { db in
            _ = try Self.findMeeting(id, in: db)
            try Self.recordDeletion(ofMeetings: MeetingRecord.filter(Column("id") == id), by: moderator, in: db, at: time)
            try db.execute(sql: "DELETE FROM meeting WHERE id = ?", arguments: [id])
            try AuditLog.record("meeting.delete", targetType: "meeting", targetId: id, by: moderator.name, reason: reason, in: db, at: time)
        }
    }

    /// Erases a user's account and personal data (profile, positions, devices, friendships,
    /// the meetings they organize); others' chat stays, the messages they sent shown without
    /// an author. Their live sessions close.
    public func deleteUser(_ reference: String, reason: String, by moderator: Moderator) async throws {
        let time = now()
        try await database.writer.write { db in
            let user = try Self.find(reference, in: db)
            guard user.id != moderator.userId else { throw MeetError.notOnYourself }
            try Self.recordDeletion(ofMeetings: MeetingRecord.filter(Column("organizerId") == user.id), by: moderator, in: db, at: time)
            try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [user.id])
            try ChangeLog.record(.userBanned, subject: user.id, detail: "account deleted", in: db, at: time)
            // The audit line names the account by id only: the address is personal data.
            try AuditLog.record("user.delete", targetType: "user", targetId: user.id, by: moderator.name, reason: reason, in: db, at: time)
        }
    }
}

extension ModerationService {
    /// Records `meeting.deleted` for each of `meetings` before they go with their members:
    /// the event is what tells a running server (this one or another process's) whose room
    /// subscriptions to end.
    private static func recordDeletion(ofMeetings meetings: QueryInterfaceRequest<MeetingRecord>, by moderator: Moderator,
                                       in db: Database, at time: Date) throws {
        for meeting in try meetings.fetchAll(db) {
            try DomainEvent.meeting(.meetingDeleted, meeting, actor: moderator.userId ?? moderator.name,
                                    recipients: try meeting.memberIds(in: db)).record(in: db, at: time)
        }
    }

    /// Redacts a chat message through chat's own redaction: its text goes, a `deleted` event
    /// takes the room's next seq and a running server broadcasts it to the room.
    public func redactMessage(_ id: String, reason: String, by moderator: Moderator) async throws {
        let time = now()
        try await database.writer.write { db in try Self.redact(id, reason: reason, by: moderator, in: db, at: time) }
    }

    /// Redacts in `db`'s transaction, with its audit line; `moderation.noChange` if it was
    /// deleted already.
    static func redact(_ id: String, reason: String, by moderator: Moderator, in db: Database, at time: Date) throws {
        guard try ChatModeration.redact(messageId: id, by: moderator.name, at: time, in: db) != nil else { throw MeetError.noChange }
        try AuditLog.record("chatMessage.redact", targetType: "message", targetId: id, by: moderator.name, reason: reason, in: db, at: time)
    }
}
