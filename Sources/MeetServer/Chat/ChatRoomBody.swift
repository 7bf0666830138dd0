import Foundation
import Hummingbird
import MeetCore

/// `{seq}`: a message of a room. The last one a member has read, by REST
/// (`POST /meetings/{id}/messages/read`) or STOMP (`SEND /app/meetings.{id}.read`); the one a
/// `SEND /app/meetings.{id}.delete` deletes.
struct ChatSeqRequest: Decodable, Sendable {
    var seq: Int64
}

/// `{seq, text}`: the new text of the sender's message `seq` (`SEND /app/meetings.{id}.edit`).
struct ChatEditRequest: Decodable, Sendable {
    var seq: Int64
    var text: String
}

/// A member's read state in one room, answered when they move their marker.
struct ReadMarkerBody: ResponseEncodable, Sendable {
    var lastReadSeq: Int64
    var unreadCount: Int
}

/// One entry of `GET /me/rooms`: `{id, kind, meetingId, userId, title, role, readOnly, lastSeq,
/// lastReadSeq, unreadCount, muted, lastMessage, lastActivityAt}`; `lastMessage` is a chat message
/// body or null. `userId` is the other member of a direct conversation (null for a meeting).
struct ChatRoomBody: Encodable, Sendable {
    var id: String
    var kind: String
    var meetingId: String?
    var userId: String?
    var title: String
    var role: String
    var readOnly: Bool
    var lastSeq: Int64
    var lastReadSeq: Int64
    var unreadCount: Int
    var muted: Bool
    var lastMessage: ChatMessageBody?
    var lastActivityAt: Date

    init(_ room: ChatRoomSummary, linkBase: String) {
        id = room.roomId
        kind = room.kind.rawValue
        meetingId = room.meetingId
        userId = room.peerId
        title = room.title
        role = room.role.rawValue
        readOnly = room.isReadOnly
        lastSeq = room.lastSeq
        lastReadSeq = room.lastReadSeq
        unreadCount = room.unreadCount
        muted = room.isMuted
        lastMessage = room.lastMessage.map { ChatMessageBody($0, linkBase: linkBase) }
        lastActivityAt = room.lastActivityAt
    }

    // Every key is always present; an absent optional is null.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(meetingId, forKey: .meetingId)
        try container.encode(userId, forKey: .userId)
        try container.encode(title, forKey: .title)
        try container.encode(role, forKey: .role)
        try container.encode(readOnly, forKey: .readOnly)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(lastReadSeq, forKey: .lastReadSeq)
        try container.encode(unreadCount, forKey: .unreadCount)
        try container.encode(muted, forKey: .muted)
        try container.encode(lastMessage, forKey: .lastMessage)
        try container.encode(lastActivityAt, forKey: .lastActivityAt)
    }

    private enum CodingKeys: String, CodingKey {
        case id, kind, meetingId, userId, title, role, readOnly, lastSeq, lastReadSeq, unreadCount, muted, lastMessage, lastActivityAt
    }
}
