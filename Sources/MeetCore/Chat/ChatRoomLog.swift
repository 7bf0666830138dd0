import Foundation
import GRDB

/// The one way a row enters a room: with the room's next seq, inside the caller's transaction.
/// Members' messages, edit and deletion events and system messages all come through here, so a
/// room's seq grows by one with no gap whatever wrote it.
enum ChatRoomLog {
    /// A row to append; what is not given is null.
    struct Entry {
        var type: ChatMessage.Kind
        var senderId: String?
        var text: String?
        var attachments: [String] = []
        var replyToSeq: Int64?
        var refersToSeq: Int64?
        var system: ChatSystemNote?
        var clientMessageId: String?
    }

    /// Appends `entry` to the room of `meetingId` (creating the room on its first row) and
    /// returns it as stored.
    static func append(_ entry: Entry, toMeeting meetingId: String, at time: Date, in db: Database) throws -> ChatMessage {
        try append(entry, toRoom: ChatRoomId.meeting(meetingId), kind: .meeting, meetingId: meetingId, at: time, in: db)
    }

    /// Appends `entry` to the room `roomId` of `kind` (creating the room on its first row, with
    /// its meeting if it has one) and returns it as stored.
    static func append(_ entry: Entry, toRoom roomId: String, kind: ChatRoomKind, meetingId: String?, at time: Date,
                       in db: Database) throws -> ChatMessage {
        // Cached statements, here and below: every row of every room comes through here, and
        // compiling these each time cost more than running them.
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO chatRoom (id, meetingId, kind) VALUES (?, ?, ?)")
            .execute(arguments: [roomId, meetingId, kind.rawValue])
        let seq = try Int64.fetchOne(db.cachedStatement(sql: """
            UPDATE chatRoom SET lastSeq = lastSeq + 1, lastMessageAt = ? WHERE id = ? RETURNING lastSeq
            """), arguments: [time.timeIntervalSince1970, roomId])!
        let id = RandomToken.id()
        // Most rows have no attachments: no encoder for them.
        let attachments = entry.attachments.isEmpty
            ? "[]" : String(decoding: try JSONEncoder().encode(entry.attachments), as: UTF8.self)
        let system = try entry.system.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try db.cachedStatement(sql: """
            INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, refersToSeq, system,
                                     clientMessageId, sentAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [roomId, seq, id, entry.type.rawValue, entry.senderId, entry.text, attachments, entry.replyToSeq,
                                     entry.refersToSeq, system, entry.clientMessageId, time.timeIntervalSince1970])
        return try message(id: id, in: db)!
    }

    /// The message `senderId` stored earlier in `roomId` with the draft's `clientMessageId`, if
    /// any: a repeated post stores nothing and is answered with it.
    static func repeated(_ draft: ChatDraft, by senderId: String, in roomId: String, _ db: Database) throws -> ChatMessage? {
        try Row.fetchOne(db.cachedStatement(sql: repeatedPost), arguments: [roomId, senderId, draft.clientMessageId])
            .map(ChatMessage.init(row:))
    }

    /// Appends a member's message (`text` as validated from `draft`), once its reply target is a
    /// message of the room and its attachments are the sender's own uploads.
    /// - Throws: `request.invalidFields` (`replyToSeq: chatMessage.replyNotFound`,
    ///   `attachments: media.notOwned`).
    static func appendMessage(_ draft: ChatDraft, text: String, by senderId: String, toRoom roomId: String, kind: ChatRoomKind,
                              meetingId: String?, at time: Date, in db: Database) throws -> ChatMessage {
        if let reply = draft.replyToSeq,
           try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM chatMessage WHERE roomId = ? AND seq = ?)"),
                             arguments: [roomId, reply]) != true {
            throw MeetError.invalidField("replyToSeq", "chatMessage.replyNotFound")
        }
        let attachments = draft.attachments ?? []
        for mediaId in attachments where try !MediaAccess.isUploaded(mediaId, by: senderId, in: db) {
            throw MeetError.invalidField("attachments", "media.notOwned")
        }
        return try append(
            .init(type: .message, senderId: senderId, text: text.isEmpty ? nil : text, attachments: attachments,
                  replyToSeq: draft.replyToSeq, clientMessageId: draft.clientMessageId),
            toRoom: roomId, kind: kind, meetingId: meetingId, at: time, in: db)
    }

    /// A stored message by id, joined with its sender.
    static func message(id: String, in db: Database) throws -> ChatMessage? {
        try Row.fetchOne(db.cachedStatement(sql: byId), arguments: [id]).map(ChatMessage.init(row:))
    }

    private static let repeatedPost = ChatMessage.selection + """
         WHERE chatMessage.roomId = ? AND chatMessage.senderId = ? AND chatMessage.clientMessageId = ?
        """
    private static let byId = ChatMessage.selection + " WHERE chatMessage.id = ?"
}
