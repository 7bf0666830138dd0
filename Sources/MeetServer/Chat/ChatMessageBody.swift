import Foundation
import Hummingbird
import MeetCore
import NIOCore

/// A chat message as clients read it, on the broker and in history (DESIGN.md):
/// `{id, roomId, meetingId, recipientId, seq, type, sender: {id, displayName, photoUrl}, text, attachments,
/// replyToSeq, sentAt, clientMessageId}`, and `refersToSeq` (edit and deletion events),
/// `system` (`{kind, arguments}` of a system message), `editedAt`, `deletedAt` (the latest
/// state of a message), null where they do not apply. `meetingId` is null in a direct
/// conversation, `recipientId` (the member who is not the sender) everywhere else.
struct ChatMessageBody: Encodable, Sendable {
    /// Who sent it: null values (no photo, a moderator's deletion) are written, not left out.
    struct Sender: Encodable, Sendable {
        var id: String?
        var displayName: String?
        var photoUrl: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(displayName, forKey: .displayName)
            try container.encode(photoUrl, forKey: .photoUrl)
        }

        private enum CodingKeys: String, CodingKey {
            case id, displayName, photoUrl
        }
    }

    var id: String
    var roomId: String
    var meetingId: String?
    var recipientId: String?
    var seq: Int64
    var type: String
    var sender: Sender
    var text: String?
    var attachments: [String]
    var replyToSeq: Int64?
    var sentAt: Date
    var clientMessageId: String?
    var refersToSeq: Int64?
    var system: ChatSystemNote?
    var editedAt: Date?
    var deletedAt: Date?

    init(_ message: ChatMessage, linkBase: String) {
        id = message.id
        roomId = message.roomId
        meetingId = message.meetingId
        recipientId = message.recipientId
        seq = message.seq
        type = message.type.rawValue
        sender = Sender(
            id: message.senderId, displayName: message.senderName,
            photoUrl: message.senderPhotoId.map { "\(linkBase)/api/v1/media/\($0)" })
        text = message.text
        attachments = message.attachments
        replyToSeq = message.replyToSeq
        sentAt = message.sentAt
        clientMessageId = message.clientMessageId
        refersToSeq = message.refersToSeq
        system = message.system
        editedAt = message.editedAt
        deletedAt = message.deletedAt
    }

    // Absent optionals are written as null, so that every message has every key.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(roomId, forKey: .roomId)
        try container.encode(meetingId, forKey: .meetingId)
        try container.encode(recipientId, forKey: .recipientId)
        try container.encode(seq, forKey: .seq)
        try container.encode(type, forKey: .type)
        try container.encode(sender, forKey: .sender)
        try container.encode(text, forKey: .text)
        try container.encode(attachments, forKey: .attachments)
        try container.encode(replyToSeq, forKey: .replyToSeq)
        try container.encode(sentAt, forKey: .sentAt)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try container.encode(refersToSeq, forKey: .refersToSeq)
        try container.encode(system, forKey: .system)
        try container.encode(editedAt, forKey: .editedAt)
        try container.encode(deletedAt, forKey: .deletedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case id, roomId, meetingId, recipientId, seq, type, sender, text, attachments, replyToSeq, sentAt, clientMessageId
        case refersToSeq, system, editedAt, deletedAt
    }

    /// The MESSAGE body bytes.
    func json() throws -> ByteBuffer {
        ByteBuffer(data: try Self.encoder.encode(self))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
