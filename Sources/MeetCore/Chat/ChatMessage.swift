import Foundation
import GRDB

/// One message of a chat room, as clients see it (DESIGN.md, "STOMP over WebSocket").
public struct ChatMessage: Sendable, Equatable {
    /// What the message is: a member's message, an edit or deletion of an earlier one, or a
    /// system message (someone joined, the meeting changed).
    public enum Kind: String, Sendable {
        case message, edited, deleted, system
    }

    public var id: String
    public var meetingId: String
    /// Grows by one per room, with no gaps.
    public var seq: Int64
    public var type: Kind
    public var senderId: String?
    public var senderName: String?
    public var senderPhotoId: String?
    public var text: String?
    public var attachments: [String]
    public var replyToSeq: Int64?
    public var sentAt: Date
    public var clientMessageId: String?
}

extension ChatMessage {
    /// The columns ``init(row:)`` reads: a message joined with its sender.
    static let selection = """
        SELECT chatRoom.meetingId, chatMessage.*, user.displayName AS senderName, profile.photoId AS senderPhotoId
        FROM chatMessage
        JOIN chatRoom ON chatRoom.id = chatMessage.roomId
        LEFT JOIN user ON user.id = chatMessage.senderId
        LEFT JOIN profile ON profile.userId = chatMessage.senderId
        """

    init(row: Row) {
        let attachments: String = row["attachments"]
        self.init(
            id: row["id"], meetingId: row["meetingId"], seq: row["seq"], type: Kind(rawValue: row["type"]) ?? .message,
            senderId: row["senderId"], senderName: row["senderName"], senderPhotoId: row["senderPhotoId"], text: row["text"],
            attachments: (try? JSONDecoder().decode([String].self, from: Data(attachments.utf8))) ?? [],
            replyToSeq: row["replyToSeq"], sentAt: Date(timeIntervalSince1970: row["sentAt"]),
            clientMessageId: row["clientMessageId"])
    }
}

/// The room of a meeting.
enum ChatRoomID {
    static func meeting(_ meetingId: String) -> String { "meeting:" + meetingId }
}
