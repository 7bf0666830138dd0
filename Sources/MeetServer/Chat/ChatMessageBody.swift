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

    /// The MESSAGE body bytes: the document ``encode(to:)`` gives with ISO 8601 dates, written
    /// by hand (``JSONBytes``), since every committed message is encoded for its broadcast and
    /// `JSONEncoder` took a twentieth of the server's CPU under durable chat load
    /// (docs/benchmarks.md). `ChatMessageBodyTests` compares the two.
    func json() throws -> ByteBuffer {
        var json = JSONBytes(reservingCapacity: 384 + (text?.utf8.count ?? 0))
        json.open()
        json.field("id", id)
        json.field("roomId", roomId)
        json.nullable("meetingId", meetingId)
        json.nullable("recipientId", recipientId)
        json.field("seq", integer: Int(seq))
        json.field("type", type)
        json.key("sender")
        json.open()
        json.nullable("id", sender.id)
        json.nullable("displayName", sender.displayName)
        json.nullable("photoUrl", sender.photoUrl)
        json.close()
        json.nullable("text", text)
        json.key("attachments")
        json.array(attachments) { json, mediaId in json.string(mediaId) }
        json.nullable("replyToSeq", integer: replyToSeq)
        json.field("sentAt", date: sentAt)
        json.nullable("clientMessageId", clientMessageId)
        json.nullable("refersToSeq", integer: refersToSeq)
        json.key("system")
        // Rare (system messages only), and a dictionary: left to the encoder.
        if let system { json.raw(String(decoding: try Self.encoder.encode(system), as: UTF8.self)) } else { json.raw("null") }
        json.nullable("editedAt", date: editedAt)
        json.nullable("deletedAt", date: deletedAt)
        json.close()
        return ByteBuffer(bytes: json.bytes)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}

private extension JSONBytes {
    /// A string field written even when absent, as null (every message has every key).
    mutating func nullable(_ name: StaticString, _ value: String?) {
        if let value { field(name, value) } else { null(name) }
    }

    mutating func nullable(_ name: StaticString, integer value: Int64?) {
        if let value { field(name, integer: Int(value)) } else { null(name) }
    }

    mutating func nullable(_ name: StaticString, date value: Date?) {
        if let value { field(name, date: value) } else { null(name) }
    }

    private mutating func null(_ name: StaticString) {
        key(name)
        raw("null")
    }
}
