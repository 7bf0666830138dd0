import Foundation
import GRDB

/// A direct conversation: a chat room (`direct:{userA}:{userB}`) with two members, who must be
/// friends, and neither may have blocked the other, for a message to be written. It shares the
/// rooms' storage, seq, receipts, idempotency and read markers; each message is also written
/// into both members' inboxes (``DirectInbox``).
///
/// To anyone else a stranger, an ex-friend or a blocked user is answered exactly like an unknown
/// user (`user.notFound`): writing to someone says nothing about whether they exist.
enum DirectConversation {
    /// A direct message to write.
    struct Post: Sendable {
        var senderId: String
        var peerId: String
        var draft: ChatDraft
        var text: String
        var at: Date
    }

    /// The `UNION ALL` arm of ``ChatRooms/memberships(of:)``: the conversations of `userId`
    /// they may still read (``readable(by:)``). The room is read-only once they are no longer
    /// friends; its title is the other's name.
    static func memberships(of userId: String) -> SQL {
        """
        SELECT direct.roomId AS roomId, 'direct' AS kind, NULL AS meetingId, peer.id AS peerId,
               peer.displayName AS title, 'member' AS role,
               NOT EXISTS (SELECT 1 FROM friendship WHERE friendship.userId = \(userId) AND friendship.friendId = peer.id)
                   AS cancelled,
               direct.createdAt AS since
        FROM directConversation AS direct
        JOIN user AS peer ON peer.id = CASE direct.userA WHEN \(userId) THEN direct.userB ELSE direct.userA END
        WHERE (direct.userA = \(userId) OR direct.userB = \(userId)) AND \(readable(by: userId))
        """
    }

    /// An SQL condition on the conversation `direct` (a `directConversation` row) of `userId`:
    /// its other member is one they may see, so they may read it. A block (by either) or a ban
    /// closes it, as ``readableRoom(of:with:in:)`` does for its history: its list entry, its
    /// unread count and its messages in the inbox's catch-up go with it.
    static func readable(by userId: String) -> SQL {
        """
        EXISTS (SELECT 1 FROM user WHERE user.id = CASE direct.userA WHEN \(userId) THEN direct.userB ELSE direct.userA END
                AND \(UserVisibility.visible(to: userId)))
        """
    }

    /// Stores `post` (or finds the earlier one with its `clientMessageId`), in the caller's
    /// transaction, checking inside it that the two are friends: a block or an unfriending that
    /// committed first stops it.
    /// - Throws: `user.notFound` (unknown, not a friend, blocked, oneself).
    static func append(_ post: Post, in db: Database) throws -> ChatService.Posted {
        try requireFriends(post.senderId, post.peerId, in: db)
        let roomId = ChatRoomId.direct(post.senderId, post.peerId)
        if let earlier = try ChatRoomLog.repeated(post.draft, by: post.senderId, in: roomId, db) {
            return .init(message: earlier, isRepeat: true)
        }
        // Cached statements, here and in the inbox: every direct message runs them, and
        // compiling them each time cost a third of a message's CPU (perf).
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO chatRoom (id, kind) VALUES (?, 'direct')").execute(arguments: [roomId])
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO directConversation (roomId, userA, userB, createdAt) VALUES (?, ?, ?, ?)
            """).execute(arguments: [roomId, min(post.senderId, post.peerId), max(post.senderId, post.peerId), post.at.timeIntervalSince1970])
        var message = try ChatRoomLog.appendMessage(post.draft, text: post.text, by: post.senderId,
                                                    toRoom: roomId, kind: .direct, meetingId: nil, at: post.at, in: db)
        for member in [post.senderId, post.peerId] {
            message.inboxPositions[member] = try DirectInbox.add(roomId, seq: message.seq, for: member, in: db)
        }
        return .init(message: message, isRepeat: false)
    }

    /// The two members of the conversation `roomId`, or nil when there is none.
    static func members(of roomId: String, in db: Database) throws -> [String]? {
        try Row.fetchOne(db, sql: "SELECT userA, userB FROM directConversation WHERE roomId = ?", arguments: [roomId])
            .map { [$0["userA"], $0["userB"]] }
    }

    /// Refuses, as an unknown user, anyone `userId` may not write to now.
    static func requireFriends(_ userId: String, _ peerId: String, in db: Database) throws {
        // `userId` too may have been banned since their message left (by another process).
        guard userId != peerId, try FriendService.areFriends(userId, peerId, db),
              try FriendService.isVisible(peerId, to: userId, db),
              try Bool.fetchOne(db, sql: "SELECT NOT banned FROM user WHERE id = ?", arguments: [userId]) == true
        else { throw FriendService.userNotFound }
    }

    /// The conversation of `userId` with `peerId`, if there is one they may read: it stays
    /// readable after an unfriending, not after a block. Otherwise `user.notFound`, like an
    /// unknown user.
    static func readableRoom(of userId: String, with peerId: String, in db: Database) throws -> String {
        let roomId = ChatRoomId.direct(userId, peerId)
        guard userId != peerId, try FriendService.isVisible(peerId, to: userId, db),
              try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM directConversation WHERE roomId = ?)", arguments: [roomId]) == true
                || FriendService.areFriends(userId, peerId, db) else { throw FriendService.userNotFound }
        return roomId
    }
}

/// Each user's direct inbox: every direct message they sent or received, numbered per user with
/// no gap (`position`). One `since-seq` on `/user/queue/direct` then resumes every conversation
/// at once, whatever the conversations' own seqs.
enum DirectInbox {
    /// Adds message `seq` of `roomId` to `userId`'s inbox; returns its position there.
    static func add(_ roomId: String, seq: Int64, for userId: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: """
            INSERT INTO directInbox (userId, position, roomId, seq)
            SELECT ?, COALESCE(MAX(position), 0) + 1, ?, ? FROM directInbox WHERE userId = ?
            RETURNING position
            """), arguments: [userId, roomId, seq, userId])!
    }

    /// Where message `seq` of `roomId` sits in the inboxes of `members`, by user id. Read from
    /// the newest end of each inbox, where a message just stored is.
    static func positions(of roomId: String, seq: Int64, members: [String], in db: Database) throws -> [String: Int64] {
        var positions: [String: Int64] = [:]
        for member in members {
            positions[member] = try Int64.fetchOne(db, sql: """
                SELECT position FROM directInbox WHERE userId = ? AND roomId = ? AND seq = ? ORDER BY position DESC LIMIT 1
                """, arguments: [member, roomId, seq])
        }
        return positions
    }

    /// The messages of `userId`'s inbox after `position`, oldest first, at most `limit`, each
    /// with its position; those of conversations closed to them (a block, a ban) are left out,
    /// and a page holds `limit` of the others while there are that many.
    static func entries(of userId: String, after position: Int64, limit: Int, in db: Database) throws -> [(Int64, ChatMessage)] {
        // The message selection, with the inbox's position as one more column.
        let selection = "SELECT inbox.position AS inboxPosition, " + ChatMessage.selection.dropFirst("SELECT ".count)
        return try Row.fetchAll(db, SQLRequest<Row>(literal: SQL(sql: selection) + """
             JOIN directInbox AS inbox ON inbox.roomId = chatMessage.roomId AND inbox.seq = chatMessage.seq
             WHERE inbox.userId = \(userId) AND inbox.position > \(position) AND \(DirectConversation.readable(by: userId))
             ORDER BY inbox.position LIMIT \(limit)
            """)).map { row in (row["inboxPosition"], ChatMessage(row: row)) }
    }
}
