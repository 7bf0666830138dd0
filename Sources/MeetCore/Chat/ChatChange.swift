import Foundation
import GRDB

/// An edit or a deletion of a stored message, in a meeting's room or a direct conversation. It
/// takes its own seq (an `edited` or `deleted` event that refers to the message's seq, which
/// clients apply), and the message itself is changed in place, so history shows its latest
/// state: an edited message its new text, a deleted one its seq without text or attachments
/// (and its `edited` events without their text).
/// In a direct conversation the event also goes into both members' inboxes, like a message.
///
/// The author may edit within ``editWindow`` and delete within ``deleteWindow`` of posting,
/// while the room is open (the meeting not cancelled; the two still friends). The organizer
/// may delete (redact) any message of their meeting's room at any time, also in a cancelled
/// meeting's read-only room; so may a moderator in any room (``ChatModeration``).
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

    /// Where the message is.
    enum Room: Sendable, Equatable {
        case meeting(String)
        /// The conversation with this user, as its member ``ChatChange/actorId`` names it.
        case direct(peerId: String)
        /// A room by its id, as a moderator names it.
        case id(String)
    }

    /// How long after posting the author may still edit a message.
    static let editWindow: TimeInterval = 15 * 60
    /// How long after posting the author may still delete a message.
    static let deleteWindow: TimeInterval = 24 * 60 * 60

    var room: Room
    var seq: Int64
    var actorId: String
    var action: Action
    var authority: Authority
    var at: Date

    /// Applies the change in `db`'s transaction and returns its event, or nil when it changes
    /// nothing (the same text again, a message already deleted).
    /// - Throws: `meeting.notFound`, `meeting.notMember`, `user.notFound` (no conversation with
    ///   that user), `chatMessage.notFound` (no message with that seq, or an event or system
    ///   message), `chatMessage.notAuthor`, `chatMessage.changeWindowClosed`, `chatRoom.readOnly`.
    func apply(in db: Database) throws -> ChatMessage? {
        let place = try locate(in: db)
        guard let target = try Row.fetchOne(db, sql: """
                SELECT senderId, text, attachments, sentAt, deletedAt FROM chatMessage WHERE roomId = ? AND seq = ? AND type = 'message'
                """, arguments: [place.roomId, seq]) else {
            throw MeetError("chatMessage.notFound", status: 404)
        }
        let isAuthor = (target["senderId"] as String?) == actorId
        let age = at.timeIntervalSince(Date(timeIntervalSince1970: target["sentAt"]))
        let isDeleted = (target["deletedAt"] as Double?) != nil
        let event: ChatRoomLog.Entry
        switch action {
        case .edit(let edited):
            guard authority == .member, isAuthor else { throw MeetError("chatMessage.notAuthor", status: 403) }
            guard !isDeleted else { throw MeetError("chatMessage.notFound", status: 404) }
            // Stored as a post's: a photo's caption may be taken away, leaving no text.
            let text = edited.isEmpty ? nil : edited
            guard text != nil || (target["attachments"] as String) != "[]" else {
                throw MeetError.invalidFields([.init(field: "text", code: "field.required")])
            }
            // A change that changes nothing (a client's retry, say) is answered, also once the
            // window has closed or the room gone read-only since.
            guard (target["text"] as String?) != text else { return nil }
            try checkWindow(Self.editWindow, age: age, readOnly: place.isReadOnly)
            try db.execute(sql: "UPDATE chatMessage SET text = ?, editedAt = ? WHERE roomId = ? AND seq = ?",
                           arguments: [text, at.timeIntervalSince1970, place.roomId, seq])
            event = .init(type: .edited, senderId: actorId, text: text, refersToSeq: seq)
        case .delete:
            if authority == .member, !place.isOrganizer {
                guard isAuthor else { throw MeetError("chatMessage.notAuthor", status: 403) }
                if !isDeleted { try checkWindow(Self.deleteWindow, age: age, readOnly: place.isReadOnly) }
            }
            guard !isDeleted else { return nil }
            try db.execute(sql: "UPDATE chatMessage SET text = NULL, attachments = '[]', deletedAt = ? WHERE roomId = ? AND seq = ?",
                           arguments: [at.timeIntervalSince1970, place.roomId, seq])
            // Its edits carried its text: a redacted message must not stay readable through them.
            try db.execute(sql: "UPDATE chatMessage SET text = NULL WHERE roomId = ? AND refersToSeq = ? AND type = 'edited'",
                           arguments: [place.roomId, seq])
            // A moderator is nobody in the room (and may not be a user at all): their deletion
            // has no sender.
            event = .init(type: .deleted, senderId: authority == .member ? actorId : nil, refersToSeq: seq)
        }
        var appended = try ChatRoomLog.append(event, toRoom: place.roomId, kind: place.meetingId == nil ? .direct : .meeting,
                                              meetingId: place.meetingId, at: at, in: db)
        for member in place.inboxes {
            appended.inboxPositions[member] = try DirectInbox.add(place.roomId, seq: appended.seq, for: member, in: db)
        }
        return appended
    }

    /// The room, what the actor may do there, and whose inboxes its events go to.
    private struct Place {
        var roomId: String
        var meetingId: String?
        var isOrganizer = false
        var isReadOnly = false
        var inboxes: [String] = []
    }

    /// Finds the room, checking a member's place in it (a moderator's rights are the caller's).
    private func locate(in db: Database) throws -> Place {
        switch room {
        case .meeting(let meetingId):
            return try meetingPlace(meetingId, in: db)
        case .direct(let peerId):
            let roomId = try DirectConversation.readableRoom(of: actorId, with: peerId, in: db)
            return Place(roomId: roomId, isReadOnly: try !FriendService.areFriends(actorId, peerId, db), inboxes: [actorId, peerId])
        case .id(let roomId):
            if let meetingId = try String.fetchOne(db, sql: "SELECT meetingId FROM chatRoom WHERE id = ?", arguments: [roomId]) {
                return try meetingPlace(meetingId, in: db)
            }
            guard let members = try DirectConversation.members(of: roomId, in: db) else { throw MeetError("chatMessage.notFound", status: 404) }
            return Place(roomId: roomId, inboxes: members)
        }
    }

    private func meetingPlace(_ meetingId: String, in db: Database) throws -> Place {
        var place = Place(roomId: ChatRoomId.meeting(meetingId), meetingId: meetingId)
        guard authority == .member else { return place }
        let (meeting, found) = try MeetingRecord.visible(meetingId, to: actorId, in: db)
        guard found == .organizer || found == .member else { throw MeetError.notMember }
        place.isOrganizer = found == .organizer
        place.isReadOnly = meeting.isCancelled
        return place
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
