import Foundation
import GRDB

extension DomainEvent.Kind {
    /// A moderator redacted a chat message from outside the server (the admin CLI); the
    /// server's chat consumer broadcasts the stored `deleted` event to the room.
    public static let chatMessageRedacted = Self(rawValue: "chatMessage.redacted")
}

/// The payload of `chatMessage.redacted`: the room and the seq of the `deleted` event.
public struct ChatRedactionPayload: Codable, Sendable, Equatable {
    /// The meeting whose room held the message.
    public var meetingId: String
    /// The redacted message's id.
    public var messageId: String
    /// The seq of the `deleted` event that redacted it.
    public var eventSeq: Int64
    /// Who redacted it, as the audit log names them (`user:<id>` or `cli:<login>`).
    public var moderatorId: String
}

/// Redaction by a moderator (issue 13's admin CLI and `/admin` routes). Rights are the
/// caller's to check: a redaction here removes any message of any room, at any age, also in a
/// read-only room. The `deleted` event has no sender (`moderatorId` may be any name, e.g. a
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
        let change = ChatChange(meetingId: target.meetingId, seq: target.seq, actorId: moderatorId, action: .delete,
                                authority: .moderator, at: time)
        guard let event = try change.apply(in: db) else { return nil }
        try DomainEvent(.chatMessageRedacted, payload: ChatRedactionPayload(
            meetingId: target.meetingId, messageId: messageId, eventSeq: event.seq, moderatorId: moderatorId)).record(in: db, at: time)
        return event
    }

    /// The room and seq of a message, by its id.
    static func target(of messageId: String, in db: Database) throws -> (meetingId: String, seq: Int64) {
        guard let row = try Row.fetchOne(db, sql: """
                SELECT chatRoom.meetingId, chatMessage.seq FROM chatMessage JOIN chatRoom ON chatRoom.id = chatMessage.roomId
                WHERE chatMessage.id = ? AND chatMessage.type = 'message' AND chatRoom.meetingId IS NOT NULL
                """, arguments: [messageId]) else {
            throw MeetError("chatMessage.notFound", status: 404)
        }
        return (row["meetingId"], row["seq"])
    }
}
