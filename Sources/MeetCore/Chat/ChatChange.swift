import Foundation
import GRDB

/// An edit or a deletion of a stored message. It takes its own seq (an `edited` or `deleted`
/// event that refers to the message's seq, which clients apply), and the message itself is
/// changed in place, so history shows its latest state: an edited message its new text, a
/// deleted one its seq without text or attachments.
///
/// The author may edit within ``editWindow`` and delete within ``deleteWindow`` of posting,
/// while the room is open. The organizer may delete (redact) any message at any time, also in
/// a cancelled meeting's read-only room; so may a moderator (``ChatModeration``).
struct ChatChange: Sendable {
    enum Action: Sendable, Equatable {
        case edit(String)
        case delete
    }

    /// Who is changing the message: a member of the room (rights checked here), or a moderator
    /// (checked by the caller).
    enum Authority: Sendable {
        case member, moderator
    }

    /// How long after posting the author may still edit a message.
    static let editWindow: TimeInterval = 15 * 60
    /// How long after posting the author may still delete a message.
    static let deleteWindow: TimeInterval = 24 * 60 * 60

    var meetingId: String
    var seq: Int64
    var actorId: String
    var action: Action
    var authority: Authority
    var at: Date

    /// Applies the change in `db`'s transaction and returns its event, or nil when it changes
    /// nothing (the same text again, a message already deleted).
    /// - Throws: `meeting.notFound`, `meeting.notMember`, `chatMessage.notFound` (no message
    ///   with that seq, or an event or system message), `chatMessage.notAuthor`,
    ///   `chatMessage.changeWindowClosed`, `chatRoom.readOnly`.
    func apply(in db: Database) throws -> ChatMessage? {
        var role: MeetingRole?
        var isReadOnly = false
        if authority == .member {
            let (meeting, found) = try MeetingRecord.visible(meetingId, to: actorId, in: db)
            guard found == .organizer || found == .member else { throw MeetError.notMember }
            role = found
            isReadOnly = meeting.isCancelled
        }
        let roomId = ChatRoomId.meeting(meetingId)
        guard let target = try Row.fetchOne(db, sql: """
                SELECT senderId, text, sentAt, deletedAt FROM chatMessage WHERE roomId = ? AND seq = ? AND type = 'message'
                """, arguments: [roomId, seq]) else {
            throw MeetError("chatMessage.notFound", status: 404)
        }
        let isAuthor = (target["senderId"] as String?) == actorId
        let age = at.timeIntervalSince(Date(timeIntervalSince1970: target["sentAt"]))
        let isDeleted = (target["deletedAt"] as Double?) != nil
        switch action {
        case .edit(let text):
            guard authority == .member, isAuthor else { throw MeetError("chatMessage.notAuthor", status: 403) }
            guard !isDeleted else { throw MeetError("chatMessage.notFound", status: 404) }
            try checkWindow(Self.editWindow, age: age, readOnly: isReadOnly)
            guard (target["text"] as String?) != text else { return nil }
            try db.execute(sql: "UPDATE chatMessage SET text = ?, editedAt = ? WHERE roomId = ? AND seq = ?",
                           arguments: [text, at.timeIntervalSince1970, roomId, seq])
            return try ChatRoomLog.append(.init(type: .edited, senderId: actorId, text: text, refersToSeq: seq),
                                          toMeeting: meetingId, at: at, in: db)
        case .delete:
            if authority == .member, role != .organizer {
                guard isAuthor else { throw MeetError("chatMessage.notAuthor", status: 403) }
                try checkWindow(Self.deleteWindow, age: age, readOnly: isReadOnly)
            }
            guard !isDeleted else { return nil }
            try db.execute(sql: "UPDATE chatMessage SET text = NULL, attachments = '[]', deletedAt = ? WHERE roomId = ? AND seq = ?",
                           arguments: [at.timeIntervalSince1970, roomId, seq])
            // A moderator is nobody in the room (and may not be a user at all): their deletion
            // has no sender.
            return try ChatRoomLog.append(.init(type: .deleted, senderId: authority == .member ? actorId : nil, refersToSeq: seq),
                                          toMeeting: meetingId, at: at, in: db)
        }
    }

    private func checkWindow(_ window: TimeInterval, age: TimeInterval, readOnly: Bool) throws {
        guard !readOnly else { throw MeetError.roomReadOnly }
        guard age <= window else {
            throw MeetError("chatMessage.changeWindowClosed", status: 409)
        }
    }
}

extension MeetError {
    static let roomReadOnly = MeetError("chatRoom.readOnly", status: 409)
}
