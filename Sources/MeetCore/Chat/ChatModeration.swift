import Foundation
import GRDB

extension DomainEvent.Kind {
    /// A moderator redacted a chat message from outside the server (the admin CLI); the
    /// server's chat consumer broadcasts the stored `deleted` event to the room.
    public static let chatMessageRedacted = Self(rawValue: "chatMessage.redacted")
}

/// The payload of `chatMessage.redacted`: the room and the seq of the `deleted` event.
public struct ChatRedactionPayload: Codable, Sendable, Equatable {
    /// The room that held the message (absent in events of versions that redacted only in
    /// meetings' rooms: then the meeting's room).
    public var roomId: String?
    /// The meeting whose room held the message; nil for a direct conversation.
    public var meetingId: String?
    /// The redacted message's id.
    public var messageId: String
    /// The seq of the `deleted` event that redacted it.
    public var eventSeq: Int64
    /// Who redacted it, as the audit log names them (`user:<id>` or `cli:<login>`).
    public var moderatorId: String
}

/// Redaction by a moderator (issue 13's admin CLI and `/admin` routes). Rights are the
/// caller's to check: a redaction here removes any message of any room (a meeting's or a direct
/// conversation), at any age, also in a read-only room. The `deleted` event has no sender (`moderatorId` may be any name, e.g. a
/// terminal login; it is kept in the `chatMessage.redacted` event for the audit).
public enum ChatModeration {
    /// Redacts the message `messageId` inside the caller's write transaction, for a process
    /// that has no running ``ChatService`` (the admin CLI): the message keeps its seq without
    /// text, a `deleted` event takes the room's next seq, and a `chatMessage.redacted` domain
    /// event tells the server to broadcast it. Answers the `deleted` event, or nil when the
    /// message was deleted already. In the server, use ``ChatService/redact(messageId:by:)``.
    /// - Throws: `chatMessage.notFound` (404) for an unknown id or one that is no message.
    @discardableResult
    public static func redact(messageId: String, by moderatorId: String, at time: Date, in db: Database) throws -> ChatMessage? {
        let target = try target(of: messageId, in: db)
        let change = ChatChange(room: .id(target.roomId), seq: target.seq, actorId: moderatorId, action: .delete,
                                authority: .moderator, at: time)
        guard let event = try change.apply(in: db) else { return nil }
        try DomainEvent(.chatMessageRedacted, payload: ChatRedactionPayload(
            roomId: target.roomId, meetingId: event.meetingId, messageId: messageId, eventSeq: event.seq, moderatorId: moderatorId))
            .record(in: db, at: time)
        return event
    }

    /// The room and seq of a message, by its id.
    static func target(of messageId: String, in db: Database) throws -> (roomId: String, seq: Int64) {
        guard let row = try Row.fetchOne(db, sql: "SELECT roomId, seq FROM chatMessage WHERE id = ? AND type = 'message'",
                                         arguments: [messageId]) else {
            throw MeetError("chatMessage.notFound", status: 404)
        }
        return (row["roomId"], row["seq"])
    }

    /// The `deleted` event a `chatMessage.redacted` event tells of, as stored, with its places
    /// in the inboxes of a direct conversation's members, for the broadcast.
    static func redactionEvent(_ redaction: ChatRedactionPayload, in db: Database) throws -> ChatMessage? {
        guard let roomId = redaction.roomId ?? redaction.meetingId.map(ChatRoomId.meeting),
              var event = try Row.fetchOne(db, sql: ChatMessage.selection + " WHERE chatMessage.roomId = ? AND chatMessage.seq = ?",
                                           arguments: [roomId, redaction.eventSeq]).map(ChatMessage.init(row:)) else { return nil }
        if event.meetingId == nil, let members = try DirectConversation.members(of: roomId, in: db) {
            event.inboxPositions = try DirectInbox.positions(of: roomId, seq: redaction.eventSeq, members: members, in: db)
        }
        return event
    }
}
