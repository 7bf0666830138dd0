import Foundation
import GRDB

/// What a member has read: the last seq they reported per room, and what they have not read
/// since. Unread counts the messages and system messages of others after the marker that are
/// still there (edit and deletion events, one's own messages and deleted messages do not count).
public enum ChatUnread {
    /// How many of `userId`'s room messages are unread, over every room they belong to: the
    /// number push badges show. Call it inside any read or write of the database.
    public static func total(for userId: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, SQLRequest<Int>(literal: """
            SELECT COALESCE(SUM(\(count(userId))), 0) FROM (\(ChatRooms.memberships(of: userId))) AS room
            LEFT JOIN chatReadMarker AS marker ON marker.roomId = room.roomId AND marker.userId = \(userId)
            """)) ?? 0
    }

    /// The unread messages of the room in column `room.roomId`, for `userId` whose marker is
    /// joined as `marker`.
    static func count(_ userId: String) -> SQL {
        """
        (SELECT COUNT(*) FROM chatMessage AS unread
         WHERE unread.roomId = room.roomId AND unread.seq > COALESCE(marker.lastReadSeq, 0)
           AND unread.type IN ('message', 'system') AND unread.deletedAt IS NULL
           AND unread.senderId IS NOT \(userId))
        """
    }

    /// Moves `userId`'s marker in `roomId` forward to `seq` (never back), which must be a seq
    /// the room has reached. Returns the marker as it stands and how many messages remain unread.
    static func markRead(_ roomId: String, upTo seq: Int64, by userId: String, in db: Database) throws -> (lastReadSeq: Int64, unreadCount: Int) {
        let lastSeq = try Int64.fetchOne(db, sql: "SELECT lastSeq FROM chatRoom WHERE id = ?", arguments: [roomId]) ?? 0
        guard (0...lastSeq).contains(seq) else {
            throw MeetError.invalidField("seq", "field.outOfRange", arguments: ["minimum": "0", "maximum": String(lastSeq)])
        }
        let marker = try Int64.fetchOne(db, sql: """
            INSERT INTO chatReadMarker (roomId, userId, lastReadSeq) VALUES (?, ?, ?)
            ON CONFLICT (roomId, userId) DO UPDATE SET lastReadSeq = max(lastReadSeq, excluded.lastReadSeq)
            RETURNING lastReadSeq
            """, arguments: [roomId, userId, seq])!
        let unread = try Int.fetchOne(db, SQLRequest<Int>(literal: """
            SELECT \(count(userId)) FROM (SELECT \(roomId) AS roomId) AS room
            LEFT JOIN chatReadMarker AS marker ON marker.roomId = room.roomId AND marker.userId = \(userId)
            """)) ?? 0
        return (marker, unread)
    }
}
