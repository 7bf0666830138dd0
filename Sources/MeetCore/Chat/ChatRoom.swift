import GRDB

/// What a chat room belongs to. Rooms of every kind share the storage, the seq, the receipts
/// and the read state; only who belongs to them differs (``ChatRooms/memberships``).
public enum ChatRoomKind: String, Sendable, Codable {
    /// The room of a meeting: its organizer and members.
    case meeting
    /// A direct conversation between two friends (``DirectConversation``).
    case direct
}

/// Room ids are `<kind>:<key>`, so that rooms of every kind live in one table.
enum ChatRoomId {
    static func meeting(_ meetingId: String) -> String { ChatRoomKind.meeting.rawValue + ":" + meetingId }

    /// `direct:{a}:{b}` with the two user ids in order, so both sides name the same room.
    static func direct(_ one: String, _ other: String) -> String {
        ChatRoomKind.direct.rawValue + ":" + min(one, other) + ":" + max(one, other)
    }
}

/// The rooms a user belongs to, whatever their kind.
enum ChatRooms {
    /// One row per room `userId` belongs to: `roomId, kind, meetingId, peerId, title, role,
    /// cancelled, since` (when they joined, the room's activity before its first message). A new
    /// kind of room adds its own `UNION ALL` arm with the same columns.
    static func memberships(of userId: String) -> SQL {
        """
        SELECT 'meeting:' || member.meetingId AS roomId, 'meeting' AS kind, member.meetingId AS meetingId,
               NULL AS peerId, meeting.title AS title, member.role AS role,
               meeting.cancelledAt IS NOT NULL AS cancelled, member.joinedAt AS since
        FROM meetingMember AS member JOIN meeting ON meeting.id = member.meetingId
        WHERE member.userId = \(userId)
        UNION ALL
        \(DirectConversation.memberships(of: userId))
        """
    }
}
