import Foundation
import GRDB

/// One entry of a user's chat list (`GET /me/rooms`): the room, the caller's role in it, its
/// last message and how many messages the caller has not read.
public struct ChatRoomSummary: Sendable, Equatable {
    /// The caller's part in the room (`member` in a direct conversation).
    public enum Role: String, Sendable {
        case organizer, member
    }

    /// `meeting:{meetingId}` or `direct:{userA}:{userB}`: stable, opaque to clients.
    public var roomId: String
    /// A meeting's room or a direct conversation.
    public var kind: ChatRoomKind
    /// The meeting of a meeting's room.
    public var meetingId: String?
    /// The other member of a direct conversation.
    public var peerId: String?
    /// What the list shows: the meeting's title, or the other member's display name.
    public var title: String
    /// The caller's part in the room.
    public var role: Role
    /// A cancelled meeting's room is read-only, as is a conversation with someone no longer a friend.
    public var isReadOnly: Bool
    /// The room's newest seq (0 before its first message).
    public var lastSeq: Int64
    /// The newest seq the caller has marked read (0 before any).
    public var lastReadSeq: Int64
    /// Messages and system notes after `lastReadSeq` that others sent and are not deleted.
    public var unreadCount: Int
    /// The caller muted the room's pushes (`PUT /meetings/{id}/mute`, `/direct/{userId}/mute`).
    public var isMuted: Bool
    /// The newest message (not an edit or deletion event), in its latest state.
    public var lastMessage: ChatMessage?
    /// When the room last had a message, or when the caller joined it if it has none.
    public var lastActivityAt: Date
}

/// Where a page of the chat list starts: after this room, in the list's order (newest activity
/// first, then room id).
public struct ChatRoomCursor: Sendable, Equatable {
    var activity: Double
    var roomId: String

    /// The cursor a client sent back, or `nil` if it is not one of ours.
    public init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8),
              let newline = plain.firstIndex(of: "\n"), let activity = Double(plain[..<newline]), activity.isFinite else { return nil }
        self.activity = activity
        self.roomId = String(plain[plain.index(after: newline)...])
    }

    init(after summary: ChatRoomSummary) {
        activity = summary.lastActivityAt.timeIntervalSince1970
        roomId = summary.roomId
    }

    /// The opaque text handed to clients (base64url, no padding).
    public var text: String {
        Data("\(activity)\n\(roomId)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension ChatService {
    /// When a room of the list (`room`) was last active: its newest message or system message
    /// (what the list shows as its last message), or the caller's joining before the first.
    /// Not `chatRoom.lastMessageAt`: an edit or a deletion takes a seq too, but must not move an
    /// old message's room to the top.
    private static let lastActivity: SQL = """
        COALESCE((SELECT last.sentAt FROM chatMessage AS last WHERE last.roomId = room.roomId AND last.type IN ('message', 'system')
                  ORDER BY last.seq DESC LIMIT 1), room.since)
        """

    /// The most rooms one page of the chat list holds.
    public static let roomPageLimit = 1...100

    /// The rooms `userId` belongs to, most recently active first, after `cursor`; and the
    /// cursor of the next page, if there is one.
    public func rooms(of userId: String, after cursor: ChatRoomCursor?, limit: Int) async throws -> (rooms: [ChatRoomSummary], next: ChatRoomCursor?) {
        guard Self.roomPageLimit.contains(limit) else {
            throw MeetError.invalidField("limit", "field.outOfRange", arguments: [
                "minimum": String(Self.roomPageLimit.lowerBound), "maximum": String(Self.roomPageLimit.upperBound)])
        }
        return try await database.writer.read { db in
            let after: SQL = cursor.map { (cursor) -> SQL in "WHERE (activity, roomId) < (\(cursor.activity), \(cursor.roomId))" } ?? ""
            let rows = try Row.fetchAll(db, SQLRequest(literal: """
                SELECT * FROM (
                    SELECT room.*, COALESCE(chatRoom.lastSeq, 0) AS lastSeq, COALESCE(marker.lastReadSeq, 0) AS lastReadSeq,
                           \(Self.lastActivity) AS activity, \(ChatUnread.count(userId)) AS unreadCount,
                           EXISTS (SELECT 1 FROM notificationMute AS mute WHERE mute.userId = \(userId) AND mute.thread =
                                   CASE room.kind WHEN 'meeting' THEN 'meeting.' || room.meetingId ELSE room.roomId END) AS muted
                    FROM (\(ChatRooms.memberships(of: userId))) AS room
                    LEFT JOIN chatRoom ON chatRoom.id = room.roomId
                    LEFT JOIN chatReadMarker AS marker ON marker.roomId = room.roomId AND marker.userId = \(userId)
                ) \(after)
                ORDER BY activity DESC, roomId DESC LIMIT \(limit + 1)
                """))
            // One row more than the page, so a last page that is exactly full says it is the last.
            let rooms = try rows.prefix(limit).map { row in
                let roomId: String = row["roomId"]
                let last = try Row.fetchOne(db, sql: ChatMessage.selection + """
                     WHERE chatMessage.roomId = ? AND chatMessage.type IN ('message', 'system') ORDER BY chatMessage.seq DESC LIMIT 1
                    """, arguments: [roomId])
                return ChatRoomSummary(
                    roomId: roomId, kind: ChatRoomKind(rawValue: row["kind"]) ?? .meeting, meetingId: row["meetingId"],
                    peerId: row["peerId"],
                    title: row["title"], role: ChatRoomSummary.Role(rawValue: row["role"]) ?? .member,
                    isReadOnly: row["cancelled"], lastSeq: row["lastSeq"], lastReadSeq: row["lastReadSeq"],
                    unreadCount: row["unreadCount"], isMuted: row["muted"], lastMessage: last.map(ChatMessage.init(row:)),
                    lastActivityAt: Date(timeIntervalSince1970: row["activity"]))
            }
            return (rooms, rows.count > limit ? rooms.last.map(ChatRoomCursor.init(after:)) : nil)
        }
    }

    /// Records that `userId` has read the room of `meetingId` up to `seq`; answers their marker
    /// (which never moves back) and how many messages remain unread there.
    /// - Throws: `meeting.notFound`, `meeting.notMember`, `request.invalidFields` (`seq` beyond
    ///   the room's last message).
    public func markRead(_ meetingId: String, upTo seq: Int64, by userId: String) async throws -> (lastReadSeq: Int64, unreadCount: Int) {
        try await database.writer.write { db in
            try Self.requireMember(userId, of: meetingId, in: db)
            let roomId = ChatRoomId.meeting(meetingId)
            return try ChatUnread.markRead(roomId, upTo: seq, by: userId, in: db)
        }
    }

    /// How many room messages `userId` has not read, over all their rooms (the push badge).
    public func unreadTotal(for userId: String) async throws -> Int {
        try await database.writer.read { db in try ChatUnread.total(for: userId, in: db) }
    }
}
