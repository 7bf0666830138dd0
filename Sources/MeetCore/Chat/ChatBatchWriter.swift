import Foundation
import GRDB

/// Writes a batch of posts in one transaction, each in its own savepoint so that one refused
/// post does not undo the others.
struct ChatBatchWriter: Sendable {
    let database: AppDatabase

    func write(_ posts: [ChatService.Post]) async -> [Result<ChatService.Posted, any Error>] {
        do {
            return try await database.writer.writeWithoutTransaction { db in
                // WAL with FULL syncs the log at every commit: what was answered survives a
                // power loss. The rest of the app keeps NORMAL (AppDatabase).
                try db.execute(sql: "PRAGMA synchronous = FULL")
                defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
                var outcomes: [Result<ChatService.Posted, any Error>] = []
                try db.inTransaction {
                    outcomes = posts.map { post in
                        Result {
                            var posted: ChatService.Posted?
                            try db.inSavepoint {
                                posted = try append(post, in: db)
                                return .commit
                            }
                            return posted!
                        }
                    }
                    return .commit
                }
                return outcomes
            }
        } catch {
            return posts.map { _ in .failure(error) }
        }
    }

    /// Stores one post with its room's next seq, or finds the one it repeats.
    private func append(_ post: ChatService.Post, in db: Database) throws -> ChatService.Posted {
        let roomId = ChatRoomID.meeting(post.meetingId)
        let (meeting, role) = try MeetingRecord.visible(post.meetingId, to: post.senderId, in: db)
        guard role == .organizer || role == .member else { throw MeetError.notMember }
        if let earlier = try Row.fetchOne(db, sql: ChatMessage.selection + """
             WHERE chatMessage.roomId = ? AND chatMessage.senderId = ? AND chatMessage.clientMessageId = ?
            """, arguments: [roomId, post.senderId, post.draft.clientMessageId]) {
            return .init(message: ChatMessage(row: earlier), isRepeat: true)
        }
        guard !meeting.isCancelled else { throw MeetError("chatRoom.readOnly", status: 409) }
        if let reply = post.draft.replyToSeq,
           try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM chatMessage WHERE roomId = ? AND seq = ?)", arguments: [roomId, reply]) != true {
            throw MeetError.invalidField("replyToSeq", "chatMessage.replyNotFound")
        }
        try db.execute(sql: "INSERT OR IGNORE INTO chatRoom (id, meetingId) VALUES (?, ?)", arguments: [roomId, post.meetingId])
        let seq = try Int64.fetchOne(db, sql: """
            UPDATE chatRoom SET lastSeq = lastSeq + 1, lastMessageAt = ? WHERE id = ? RETURNING lastSeq
            """, arguments: [post.at.timeIntervalSince1970, roomId])!
        let id = RandomToken.id()
        try db.execute(sql: """
            INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, clientMessageId, sentAt)
            VALUES (?, ?, ?, 'message', ?, ?, '[]', ?, ?, ?)
            """, arguments: [roomId, seq, id, post.senderId, post.text, post.draft.replyToSeq, post.draft.clientMessageId,
                             post.at.timeIntervalSince1970])
        let stored = try Row.fetchOne(db, sql: ChatMessage.selection + " WHERE chatMessage.id = ?", arguments: [id])!
        return .init(message: ChatMessage(row: stored), isRepeat: false)
    }
}
