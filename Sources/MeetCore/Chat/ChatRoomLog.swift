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
        let nextSeq = try db.cachedStatement(sql: """
            UPDATE chatRoom SET lastSeq = lastSeq + 1, lastMessageAt = ? WHERE id = ? RETURNING lastSeq
            """)
        let bump: StatementArguments = [time.timeIntervalSince1970, roomId]
        // The room exists for all but its first row: created only when the bump finds none.
        let seq: Int64
        if let bumped = try Int64.fetchOne(nextSeq, arguments: bump) {
            seq = bumped
        } else {
            try db.cachedStatement(sql: "INSERT INTO chatRoom (id, meetingId, kind) VALUES (?, ?, ?)")
                .execute(arguments: [roomId, meetingId, kind.rawValue])
            seq = try Int64.fetchOne(nextSeq, arguments: bump)!
        }
        let sender = try entry.senderId.flatMap { try senderProfile(of: $0, in: db) }
        return try insert(entry, id: RandomToken.id(at: time), seq: seq, toRoom: roomId, kind: kind, meetingId: meetingId,
                          sender: sender, at: time, in: db)
    }

    /// The sender's display name and photo as a message shows them.
    typealias Sender = (name: String?, photoId: String?)

    /// Thrown by ``insert(_:id:seq:toRoom:kind:meetingId:sender:at:skippingRepeat:using:in:)`` asked to
    /// skip a repeat: the sender stored a row with the entry's `clientMessageId` in the room
    /// already, and nothing was written.
    struct Repeated: Error {}

    /// Writes `entry` as row `seq` of `roomId` (whose `lastSeq` the caller advances) with `id`
    /// (``RandomToken/id(at:)`` of `time`: a commit's rows get neighbouring ids, so fewer pages of
    /// the id index to write) and returns it as stored, with `sender` (looked up by the caller)
    /// as its sender's name and photo. `skippingRepeat`: a row whose sender stored its
    /// `clientMessageId` in the room already is not written and ``Repeated`` is thrown, where it
    /// would otherwise fail the unique index; the index's own look-up answers it, no query first.
    /// `statement`: the insert for `skippingRepeat`, if the caller holds it already.
    static func insert(_ entry: Entry, id: String, seq: Int64, toRoom roomId: String, kind: ChatRoomKind,
                       meetingId: String?, sender: Sender?, at time: Date, skippingRepeat: Bool = false,
                       using statement: Statement? = nil, in db: Database) throws -> ChatMessage {
        // Most rows have no attachments: no encoder for them.
        let attachments = entry.attachments.isEmpty
            ? "[]" : String(decoding: try JSONEncoder().encode(entry.attachments), as: UTF8.self)
        let system = try entry.system.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let sentAt = time.timeIntervalSince1970
        // Bound directly: `chatMessage` is `WITHOUT ROWID` and has no triggers, so no observer
        // can see its rows (DirectlyBoundTests checks both).
        var row = DirectlyBound(try statement ?? db.cachedStatement(sql: skippingRepeat ? insertUnlessRepeated : insertRow), in: db)
        row.bind(roomId)
        row.bind(seq)
        row.bind(id)
        row.bind(entry.type.rawValue)
        row.bind(entry.senderId)
        row.bind(entry.text)
        row.bind(attachments)
        row.bind(entry.replyToSeq)
        row.bind(entry.refersToSeq)
        row.bind(system)
        row.bind(entry.clientMessageId)
        row.bind(sentAt)
        if try row.execute() == 0, skippingRepeat { throw Repeated() }
        // The row as stored, built from what was just written rather than read back (a join of
        // five tables for every post): only the sender's name and photo, and a direct
        // conversation's other member, come from other tables. `sentAt` goes through the same
        // Double the column holds, so the message equals one read from history.
        return ChatMessage(
            id: id, roomId: roomId, meetingId: meetingId,
            recipientId: kind == .direct ? try recipient(in: roomId, besides: entry.senderId, db) : nil,
            seq: seq, type: entry.type, senderId: entry.senderId, senderName: sender?.name, senderPhotoId: sender?.photoId,
            text: entry.text, attachments: entry.attachments, replyToSeq: entry.replyToSeq,
            sentAt: Date(timeIntervalSince1970: sentAt), clientMessageId: entry.clientMessageId,
            refersToSeq: entry.refersToSeq, system: entry.system)
    }

    /// The display name and photo a message shows for its sender (as ``ChatMessage/selection``
    /// joins them); nil for an account that is gone.
    private static func senderProfile(of userId: String, in db: Database) throws -> Sender? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT user.displayName, profile.photoId FROM user LEFT JOIN profile ON profile.userId = user.id WHERE user.id = ?
            """), arguments: [userId]).map { (name: $0[0], photoId: $0[1]) }
    }

    /// The member of direct conversation `roomId` who is not `senderId` (as
    /// ``ChatMessage/selection`` computes `recipientId`).
    private static func recipient(in roomId: String, besides senderId: String?, _ db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: """
            SELECT CASE userA WHEN ?2 THEN userB ELSE userA END FROM directConversation WHERE roomId = ?1
            """), arguments: [roomId, senderId])
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
        try append(message(draft, text: text, by: senderId, checkedIn: roomId, db),
                   toRoom: roomId, kind: kind, meetingId: meetingId, at: time, in: db)
    }

    /// The row a member's message (`text` as validated from `draft`) appends, once its reply
    /// target is a message of the room and its attachments are the sender's own uploads: reads
    /// only, so a refusal comes before anything is written.
    /// - Throws: as ``appendMessage(_:text:by:toRoom:kind:meetingId:at:in:)``.
    static func message(_ draft: ChatDraft, text: String, by senderId: String, checkedIn roomId: String,
                        _ db: Database) throws -> Entry {
        if let reply = draft.replyToSeq,
           try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM chatMessage WHERE roomId = ? AND seq = ?)"),
                             arguments: [roomId, reply]) != true {
            throw MeetError.invalidField("replyToSeq", "chatMessage.replyNotFound")
        }
        let attachments = draft.attachments ?? []
        for mediaId in attachments where try !MediaAccess.isUploaded(mediaId, by: senderId, in: db) {
            throw MeetError.invalidField("attachments", "media.notOwned")
        }
        return Entry(type: .message, senderId: senderId, text: text.isEmpty ? nil : text, attachments: attachments,
                     replyToSeq: draft.replyToSeq, clientMessageId: draft.clientMessageId)
    }

    private static let insertRow = """
        INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, refersToSeq, system,
                                 clientMessageId, sentAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertUnlessRepeated = insertRow + """
         ON CONFLICT (roomId, senderId, clientMessageId) WHERE clientMessageId IS NOT NULL DO NOTHING
        """

    private static let repeatedPost = ChatMessage.selection + """
         WHERE chatMessage.roomId = ? AND chatMessage.senderId = ? AND chatMessage.clientMessageId = ?
        """
}
