import Foundation
import GRDB

extension ChatService {
    /// Sends `draft` from `senderId` to their friend `peerId`: stored durably in their
    /// conversation (group commit, receipts after the commit, `clientMessageId` idempotency,
    /// the same rate limit as a room), then announced to ``onCommitted(_:)`` like a room's message.
    /// - Throws: `request.invalidFields`, `user.notFound` (unknown, not a friend, blocked: the
    ///   same answer), `chatMessage.rateLimited`.
    public func postDirect(_ draft: ChatDraft, to peerId: String, by senderId: String) async throws -> Posted {
        let text = try draft.validated()
        let time = now()
        let roomId = ChatRoomId.direct(senderId, peerId)
        if let refusal = rateRefusal(user: senderId, room: roomId, at: time) {
            guard mayBeResent(user: senderId, room: roomId, at: time) else { throw refusal }
            return try await repeated(draft, by: senderId, in: roomId, over: refusal) { db in
                do {
                    try DirectConversation.requireFriends(senderId, peerId, in: db)
                    return true
                } catch let notFriends as MeetError where notFriends == FriendService.userNotFound {
                    return false
                }
            }.get()
        }
        let posted = try await queue.submit(.direct(DirectConversation.Post(
            senderId: senderId, peerId: peerId, draft: draft, text: text, at: time))).posted!
        if posted.isRepeat { forgiveResend(user: senderId, room: roomId, at: time) }
        return posted
    }

    /// The author edits their message `seq` of the conversation with `peerId` (within
    /// ``ChatChange/editWindow``, while the two are friends); answers the `edited` event, which
    /// reaches both inboxes, or nil when the text is unchanged.
    /// - Throws: `request.invalidFields` (text), `user.notFound` (no conversation with that user),
    ///   `chatMessage.notFound`, `chatMessage.notAuthor`, `chatMessage.changeWindowClosed`,
    ///   `chatRoom.readOnly` (no longer friends).
    @discardableResult
    public func editDirect(_ seq: Int64, with peerId: String, text: String, by userId: String) async throws -> ChatMessage? {
        let text = try ChatDraft.editedText(text)
        return try await change(ChatChange(room: .direct(peerId: peerId), seq: seq, actorId: userId, action: .edit(text),
                                           authority: .member, at: now()))
    }

    /// The author deletes their message `seq` of the conversation with `peerId` (within
    /// ``ChatChange/deleteWindow``, while the two are friends); answers the `deleted` event, or
    /// nil when it was deleted already. Throws as ``editDirect(_:with:text:by:)``.
    @discardableResult
    public func deleteDirect(_ seq: Int64, with peerId: String, by userId: String) async throws -> ChatMessage? {
        try await change(ChatChange(room: .direct(peerId: peerId), seq: seq, actorId: userId, action: .delete, authority: .member, at: now()))
    }

    /// A page of the conversation of `viewer` with `peerId`, newest first, before `beforeSeq`.
    /// - Throws: `user.notFound` when there is no conversation `viewer` may read.
    public func directHistory(with peerId: String, viewer: String, beforeSeq: Int64?, limit: Int) async throws -> ChatHistoryPage {
        try Self.checkPage(limit)
        return try await database.reader.read { db in
            let roomId = try DirectConversation.readableRoom(of: viewer, with: peerId, in: db)
            return try ChatHistoryPage(of: roomId, before: beforeSeq, limit: limit, in: db)
        }
    }

    /// Moves `userId`'s read marker in their conversation with `peerId` (never back); answers it
    /// and how many messages of the conversation remain unread.
    /// - Throws: `user.notFound`, `request.invalidFields` (`seq` beyond the last message).
    public func markDirectRead(with peerId: String, upTo seq: Int64, by userId: String) async throws -> (lastReadSeq: Int64, unreadCount: Int) {
        try await database.writer.write { db in
            let roomId = try DirectConversation.readableRoom(of: userId, with: peerId, in: db)
            return try ChatUnread.markRead(roomId, upTo: seq, by: userId, in: db)
        }
    }

    /// The direct messages of `userId` after their inbox `position`, oldest first, at most
    /// `limit`, each with its position: what a resuming `/user/queue/direct` subscriber missed.
    public func directInbox(of userId: String, after position: Int64, limit: Int) async throws -> [(position: Int64, message: ChatMessage)] {
        try await database.reader.read { db in try DirectInbox.entries(of: userId, after: position, limit: limit, in: db) }
    }
}

extension ChatService {
    /// Refuses, as an unknown user (`user.notFound`), anyone `userId` may not write to now: what
    /// is relayed without being stored (typing) asks this first.
    public func requireDirectPeer(_ peerId: String, of userId: String) async throws {
        try await database.reader.read { db in try DirectConversation.requireFriends(userId, peerId, in: db) }
    }
}
