import Foundation
import GRDB

/// One message of a chat room, as clients see it (DESIGN.md, "STOMP over WebSocket").
public struct ChatMessage: Sendable, Equatable {
    /// What the message is: a member's message, an edit or deletion of an earlier one, or a
    /// system message (someone joined, the meeting changed).
    public enum Kind: String, Sendable {
        case message, edited, deleted, system
    }

    /// Opaque id, also what reports of a message name.
    public var id: String
    /// The room: `meeting:{meetingId}` or `direct:{userA}:{userB}`.
    public var roomId: String
    /// The meeting of a meeting room's message; nil in a direct conversation.
    public var meetingId: String?
    /// In a direct conversation, the member who is not the sender.
    public var recipientId: String?
    /// Grows by one per room, with no gaps.
    public var seq: Int64
    /// A message, an edit, a deletion or a system message.
    public var type: Kind
    /// Who sent it (for a system message, who did what it tells); nil once their account is gone.
    public var senderId: String?
    /// The sender's display name at reading time, for showing without another query.
    public var senderName: String?
    /// The sender's profile photo id, if any.
    public var senderPhotoId: String?
    /// The text as stored (trimmed); nil when there is none (a system message, a deleted one).
    public var text: String?
    /// Ids of the uploaded photos it carries, in order.
    public var attachments: [String]
    /// The seq of the message this one answers, in the same room.
    public var replyToSeq: Int64?
    /// When the server stored it.
    public var sentAt: Date
    /// The sender's own id for it, so a resend is recognised and not stored twice.
    public var clientMessageId: String?
    /// For `edited` and `deleted` events: the seq of the message they change.
    public var refersToSeq: Int64?
    /// For `system` messages: what happened, for the client to put in words.
    public var system: ChatSystemNote?
    /// When the message was last edited (it shows its latest text).
    public var editedAt: Date?
    /// When the message was deleted (it keeps its seq, without text or attachments).
    public var deletedAt: Date?
    /// A direct message's place in each member's inbox (``DirectInbox``), by user id: set on
    /// the message as it is appended, for the live delivery; empty when read back.
    public var inboxPositions: [String: Int64] = [:]
}

/// What a system message says, as a kind and named arguments that clients localize
/// (`{"kind": "memberJoined", "arguments": {"userId": "u7", "displayName": "Olena"}}`).
public struct ChatSystemNote: Codable, Sendable, Equatable {
    /// What happened, such as `memberJoined`; clients pick their wording by it.
    public var kind: String
    /// Named values the wording needs (`userId`, `displayName`, ...).
    public var arguments: [String: String]

    /// Makes a note of `kind` with its `arguments`.
    public init(kind: String, arguments: [String: String]) {
        self.kind = kind
        self.arguments = arguments
    }
}

extension ChatMessage {
    /// The columns ``init(row:)`` reads: a message joined with its sender.
    static let selection = """
        SELECT chatRoom.meetingId, chatMessage.*, user.displayName AS senderName, profile.photoId AS senderPhotoId,
               CASE direct.userA WHEN chatMessage.senderId THEN direct.userB ELSE direct.userA END AS recipientId
        FROM chatMessage
        JOIN chatRoom ON chatRoom.id = chatMessage.roomId
        LEFT JOIN directConversation AS direct ON direct.roomId = chatMessage.roomId
        LEFT JOIN user ON user.id = chatMessage.senderId
        LEFT JOIN profile ON profile.userId = chatMessage.senderId
        """

    /// Reads the columns by their lower-case names, GRDB's own spelling: it matches names
    /// case-insensitively through a table of lowercased names, so a camel-case name misses it
    /// and is lowercased again for a second look-up (as in `MeetingRecord(row:)`). History,
    /// catch-up and the repeated-post check decode every row here.
    init(row: Row) {
        let attachments: String = row["attachments"]
        self.init(
            id: row["id"], roomId: row["roomid"], meetingId: row["meetingid"], recipientId: row["recipientid"], seq: row["seq"], type: Kind(rawValue: row["type"]) ?? .message,
            senderId: row["senderid"], senderName: row["sendername"], senderPhotoId: row["senderphotoid"], text: row["text"],
            attachments: attachments == "[]" ? [] : (try? JSONDecoder().decode([String].self, from: Data(attachments.utf8))) ?? [],
            replyToSeq: row["replytoseq"], sentAt: Date(timeIntervalSince1970: row["sentat"]),
            clientMessageId: row["clientmessageid"], refersToSeq: row["referstoseq"],
            system: (row["system"] as String?).flatMap { try? JSONDecoder().decode(ChatSystemNote.self, from: Data($0.utf8)) },
            editedAt: (row["editedat"] as Double?).map(Date.init(timeIntervalSince1970:)),
            deletedAt: (row["deletedat"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
