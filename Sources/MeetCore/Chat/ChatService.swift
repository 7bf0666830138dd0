import Foundation
import GRDB
import Synchronization

/// The chat rooms of meetings: posting (durable, ordered, idempotent), history and catch-up.
///
/// A post is answered only once it is committed with `synchronous = FULL` (so a receipt means
/// the message survives a power loss), in a transaction it may share with other posts
/// (``ChatCommitQueue``). Committed messages are announced to the listener in `seq` order,
/// before their senders are answered, so that a broadcast never shows a message that could be
/// lost and never shows a room's messages out of order.
public final class ChatService: Sendable {
    /// A post's outcome: the stored message, and whether it was stored before (a repeated
    /// `clientMessageId`, answered with the original).
    public struct Posted: Sendable {
        public var message: ChatMessage
        public var isRepeat: Bool
    }

    struct Post: Sendable {
        var meetingId: String
        var senderId: String
        var draft: ChatDraft
        var text: String
        var at: Date
    }

    /// The most messages one history page or catch-up read returns.
    public static let pageLimit = 1...200

    let database: AppDatabase
    let now: @Sendable () -> Date
    let rateLimit: ChatRateLimit
    private let listener = ChatListener()
    private let queue: ChatCommitQueue<Post, Posted>

    public init(database: AppDatabase, now: @escaping @Sendable () -> Date, burst: Int = 10, perSecond: Double = 1) {
        self.database = database
        self.now = now
        self.rateLimit = ChatRateLimit(burst: burst, perSecond: perSecond)
        let writer = ChatBatchWriter(database: database)
        let listener = self.listener
        queue = ChatCommitQueue { posts in
            let outcomes = await writer.write(posts)
            let fresh = outcomes.compactMap { try? $0.get() }.filter { !$0.isRepeat }.map(\.message)
            if !fresh.isEmpty { listener.announce(fresh) }
            return outcomes
        }
    }

    /// Sets who hears of committed messages (the broker's broadcast), in commit order.
    public func onCommitted(_ announce: @escaping @Sendable ([ChatMessage]) -> Void) {
        listener.set(announce)
    }

    /// Posts `draft` to the room of `meetingId` as `senderId`, a member or the organizer.
    /// - Throws: `request.invalidFields` (text, clientMessageId, attachments, replyToSeq),
    ///   `meeting.notFound` (also for a private meeting the sender may not know),
    ///   `meeting.notMember`, `chatRoom.readOnly` (cancelled), `chatMessage.rateLimited` (429).
    public func post(_ draft: ChatDraft, to meetingId: String, by senderId: String) async throws -> Posted {
        let text = try draft.validated()
        let time = now()
        if let wait = rateLimit.take(user: senderId, room: meetingId, now: time) {
            let seconds = String(Int(wait.rounded(.up)))
            throw MeetError("chatMessage.rateLimited", status: 429, arguments: ["retryAfter": seconds], headers: ["Retry-After": seconds])
        }
        return try await queue.submit(Post(meetingId: meetingId, senderId: senderId, draft: draft, text: text, at: time))
    }

    /// A page of a room's history for a member, newest first, before `beforeSeq` (or from the
    /// newest); the next page starts before the last one returned.
    public func history(of meetingId: String, viewer: String, beforeSeq: Int64?, limit: Int) async throws -> [ChatMessage] {
        guard Self.pageLimit.contains(limit) else {
            throw MeetError.invalidField("limit", "field.outOfRange", arguments: [
                "minimum": String(Self.pageLimit.lowerBound), "maximum": String(Self.pageLimit.upperBound)])
        }
        return try await database.reader.read { db in
            try Self.requireMember(viewer, of: meetingId, in: db)
            return try Row.fetchAll(db, sql: ChatMessage.selection + """
                 WHERE chatMessage.roomId = ? AND chatMessage.seq < ? ORDER BY chatMessage.seq DESC LIMIT ?
                """, arguments: [ChatRoomID.meeting(meetingId), beforeSeq ?? Int64.max, limit]).map(ChatMessage.init(row:))
        }
    }

    /// The room's messages after `seq`, oldest first, at most `limit`: what a resuming
    /// subscriber missed. The caller has checked membership.
    public func messages(of meetingId: String, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: ChatMessage.selection + """
                 WHERE chatMessage.roomId = ? AND chatMessage.seq > ? ORDER BY chatMessage.seq LIMIT ?
                """, arguments: [ChatRoomID.meeting(meetingId), seq, limit]).map(ChatMessage.init(row:))
        }
    }

    /// Refuses anyone but the organizer and members, answering a private meeting's outsiders
    /// exactly like an unknown meeting.
    static func requireMember(_ userId: String, of meetingId: String, in db: Database) throws {
        let role = try MeetingAccess.role(of: userId, inMeeting: meetingId, in: db)
        guard role == .organizer || role == .member else { throw MeetError.notMember }
    }
}

/// Who hears of committed messages; set once the broker exists, which is made after the services.
private final class ChatListener: Sendable {
    private let announcer = Mutex<(@Sendable ([ChatMessage]) -> Void)?>(nil)

    func set(_ announce: @escaping @Sendable ([ChatMessage]) -> Void) {
        announcer.withLock { $0 = announce }
    }

    func announce(_ messages: [ChatMessage]) {
        announcer.withLock { $0 }?(messages)
    }
}
