import Foundation
import GRDB
import Logging
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
        /// The message as stored (the original one for a repeat).
        public var message: ChatMessage
        /// Whether the `clientMessageId` had been used before, so nothing new was stored.
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
    /// How long a failed pass over the event log waits before the next try (doubling to 30 s).
    static let firstEventRetry = Duration.milliseconds(250)

    let database: AppDatabase
    let now: @Sendable () -> Date
    /// Where a failed pass over the event log is told: nobody waits for its answer.
    let logger: Logger
    let rateLimit: ChatRateLimit
    /// Re-sends (a repeated `clientMessageId`) that `rateLimit` does not charge, or answers past
    /// it: a reconnecting client re-sends the few posts it had no RECEIPT for, and a loop of
    /// re-sends is capped here, so it cannot keep the writer or the pool busy for free.
    let resends: ChatRateLimit
    private let listener = ChatListener()
    private let eventReader = Mutex(EventReaderState.idle)
    let queue: ChatCommitQueue<ChatWrite, ChatWritten>

    /// `pushDelay`: how long the pushes of a room's message wait for the messages that follow
    /// it, to go out as one (``ChatPushes``).
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date, burst: Int = 10, perSecond: Double = 1,
                pushDelay: TimeInterval = ChatPushes.defaultDelay, logger: Logger = Logger(label: "meetupd.chat")) {
        self.database = database
        self.now = now
        self.logger = logger
        self.rateLimit = ChatRateLimit(burst: burst, perSecond: perSecond)
        self.resends = ChatRateLimit(burst: burst * 5, perSecond: perSecond * 5)
        let writer = ChatBatchWriter(pushDelay: pushDelay, posters: ChatPosters(database: database),
                                     audience: ChatPushAudience(database: database))
        let listener = self.listener
        let eventsRecorded = ChatEventsRecorded(database: database)
        queue = ChatCommitQueue(writer: database.writer) { writes, db in
            let batch = writer.write(writes, eventsRecorded: eventsRecorded.take(), in: db)
            var appended = batch.events.appended
            var departures = batch.events.departures
            appended.reserveCapacity(appended.count + batch.outcomes.count)
            for case .success(let written) in batch.outcomes {
                appended.append(contentsOf: written.appended)
                departures.append(contentsOf: written.departures)
            }
            listener.announce(appended, departures)
            // The events this batch was to read first failed to be read: the reader tries again.
            if batch.events.eventsPending { listener.wakeEventReader() }
            return batch.outcomes
        }
        listener.setEventReaderWake { [weak self] in self?.wakeEventReader() }
    }

    /// Sets who hears of committed messages (the broker's broadcast), in commit order.
    public func onCommitted(_ announce: @escaping @Sendable ([ChatMessage]) -> Void) {
        listener.setMessages(announce)
    }

    /// Sets who hears of members leaving rooms (the broker ends their subscriptions), before the
    /// messages committed with them (the room's note of their departure).
    public func onDeparted(_ announce: @escaping @Sendable ([ChatDeparture]) -> Void) {
        listener.setDepartures(announce)
    }

    /// Reads the domain events other processes (the admin CLI) record as the change log brings
    /// them (at once when they nudge the server, else within its poll). Call before `changes`
    /// runs; this process's own events wake ``followEvents()``.
    public func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.domainEvent]) { [weak self] changes in
            if changes.contains(where: { !$0.isLocal }) { self?.wakeEventReader() }
        }
    }

    /// Follows the domain-event log until cancelled: reads what is pending, then wakes on every
    /// event this process records (those of other processes come through ``follow(_:)``), and
    /// turns them into system messages and departures (``ChatEvents``), in the same commit
    /// order as posts.
    public func followEvents() async throws {
        let observer = database.observeCommits(to: "event") { [weak self] in self?.wakeEventReader() }
        defer { observer.cancel() }
        wakeEventReader()
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }

    /// Queues a pass over the event log, unless one is queued; a wake during a pass queues
    /// another after it, so no event waits for the next poll. A pass that fails (an I/O error)
    /// is tried again, less and less often, rather than left until the next event.
    private func wakeEventReader() {
        let starts = eventReader.withLock { state in
            defer { state = state == .idle ? .reading : .readingAgain }
            return state == .idle
        }
        guard starts else { return }
        Task {
            var again = true
            var retryDelay = Self.firstEventRetry
            while again {
                var pass: ChatWritten?
                do {
                    pass = try await queue.submit(.events)
                } catch {
                    logger.warning("a pass over the event log failed; trying again", metadata: [
                        "error": "\(error)", "retryIn": "\(retryDelay)",
                    ])
                }
                if pass == nil {
                    await waitBeforeRetry(retryDelay)
                    retryDelay = min(retryDelay * 2, .seconds(30))
                } else {
                    retryDelay = Self.firstEventRetry
                }
                let pending = pass?.eventsPending ?? true
                again = eventReader.withLock { state in
                    defer { state = (pending || state == .readingAgain) ? .reading : .idle }
                    return pending || state == .readingAgain
                }
            }
        }
    }

    /// Waits `delay` after a failed pass, or less if a wake came meanwhile (a new event, such
    /// as a leave whose subscriptions must end within a second, is worth trying at once).
    private func waitBeforeRetry(_ delay: Duration) async {
        let deadline = ContinuousClock.now + delay
        while ContinuousClock.now < deadline, eventReader.withLock({ $0 }) != .readingAgain {
            try? await Task.sleep(for: min(Self.firstEventRetry, deadline - ContinuousClock.now))
        }
    }

    /// Posts `draft` to the room of `meetingId` as `senderId`, a member or the organizer.
    /// - Throws: `request.invalidFields` (text, clientMessageId, attachments, replyToSeq),
    ///   `meeting.notFound` (also for a private meeting the sender may not know),
    ///   `meeting.notMember`, `chatRoom.readOnly` (cancelled), `chatMessage.rateLimited` (429).
    public func post(_ draft: ChatDraft, to meetingId: String, by senderId: String) async throws -> Posted {
        try await withCheckedThrowingContinuation { continuation in
            post(draft, to: meetingId, by: senderId) { continuation.resume(with: $0) }
        }
    }

    /// The same, answering `answer` instead of a task: on the caller's thread if the draft is
    /// refused before it is queued, else on the database writer's thread once the post is
    /// committed (or refused there), or from a task when it is over the rate limit (which
    /// reads whether it repeats a stored one); `answer` must not block. The STOMP SEND path
    /// uses it, so that a post within the limit hops from the event loop to the writer and
    /// back, and nowhere else.
    public func post(_ draft: ChatDraft, to meetingId: String, by senderId: String,
                     answer: @escaping @Sendable (Result<Posted, any Error>) -> Void) {
        let post: Post
        do {
            post = Post(meetingId: meetingId, senderId: senderId, draft: draft, text: try draft.validated(), at: now())
        } catch {
            return answer(.failure(error))
        }
        if let refusal = rateRefusal(user: senderId, room: meetingId, at: post.at) {
            guard mayBeResent(user: senderId, room: meetingId, at: post.at) else { return answer(.failure(refusal)) }
            let roomId = ChatRoomId.meeting(meetingId)
            Task {
                answer(await repeated(draft, by: senderId, in: roomId, over: refusal) { db in
                    try MeetingAccess.roomAccess(of: senderId, toMeeting: meetingId, in: db) != nil
                })
            }
            return
        }
        queue.submit(.post(post)) { written in
            if case .success(let written) = written, written.posted!.isRepeat {
                self.forgiveResend(user: senderId, room: meetingId, at: post.at)
            }
            answer(written.map { $0.posted! })
        }
    }

    /// Answers a post over the rate limit with the message it repeats, when `senderId` stored
    /// one with its `clientMessageId` in `roomId` and `mayPost` still holds, else `refusal`: a
    /// client re-sends freely after a lost connection, and a re-send stores nothing. Read from
    /// the pool first, so that a re-send of a stored post delays no commit; one the pool does
    /// not find is looked up again on the writer, after the posts queued before it, as its
    /// original may be one of them (a re-send of a post still waiting for its RECEIPT). Either
    /// way within ``resends``, so a flood of refused posts cannot keep the writer busy.
    func repeated(_ draft: ChatDraft, by senderId: String, in roomId: String, over refusal: MeetError,
                  mayPost: @escaping @Sendable (Database) throws -> Bool) async -> Result<Posted, any Error> {
        do {
            let (allowed, earlier) = try await database.reader.read { db in
                try mayPost(db) ? (true, ChatRoomLog.repeated(draft, by: senderId, in: roomId, db)) : (false, nil)
            }
            guard allowed else { return .failure(refusal) }
            if let earlier { return .success(Posted(message: earlier, isRepeat: true)) }
            let resend = ChatResend(draft: draft, senderId: senderId, roomId: roomId, refusal: refusal, mayPost: mayPost)
            return .success(try await queue.submit(.resend(resend)).posted!)
        } catch {
            return .failure(error)
        }
    }

    /// The author edits their message `seq` in the room of `meetingId` (within
    /// ``ChatChange/editWindow``); answers the `edited` event, or nil when the text is unchanged.
    /// - Throws: `request.invalidFields` (text), `meeting.notFound`, `meeting.notMember`,
    ///   `chatMessage.notFound`, `chatMessage.notAuthor`, `chatMessage.changeWindowClosed`,
    ///   `chatRoom.readOnly`.
    @discardableResult
    public func edit(_ seq: Int64, in meetingId: String, text: String, by userId: String) async throws -> ChatMessage? {
        let text = try ChatDraft.editedText(text)
        return try await change(ChatChange(room: .meeting(meetingId), seq: seq, actorId: userId, action: .edit(text), authority: .member, at: now()))
    }

    /// Deletes message `seq` of the room of `meetingId`: its author (within
    /// ``ChatChange/deleteWindow``) or the meeting's organizer (redaction, at any time). Answers
    /// the `deleted` event, or nil when it was deleted already. Throws as ``edit(_:in:text:by:)``.
    @discardableResult
    public func delete(_ seq: Int64, in meetingId: String, by userId: String) async throws -> ChatMessage? {
        try await change(ChatChange(room: .meeting(meetingId), seq: seq, actorId: userId, action: .delete, authority: .member, at: now()))
    }

    /// A moderator redacts the message `messageId` (its `id`, as reports name it), whatever its
    /// room (a meeting's or a direct conversation) and age, in this process: stored and broadcast like an organizer's deletion. Answers
    /// the `deleted` event, or nil when it was deleted already; `chatMessage.notFound` (404) for
    /// an unknown id. From another process, use ``ChatModeration/redact(messageId:by:at:in:)``.
    @discardableResult
    public func redact(messageId: String, by moderatorId: String) async throws -> ChatMessage? {
        let target = try await database.writer.read { db in try ChatModeration.target(of: messageId, in: db) }
        return try await change(ChatChange(
            room: .id(target.roomId), seq: target.seq, actorId: moderatorId, action: .delete, authority: .moderator, at: now()))
    }

    func change(_ change: ChatChange) async throws -> ChatMessage? {
        try await queue.submit(.change(change)).appended.first
    }

    /// A page of a room's history for a member, newest first, before `beforeSeq` (or from the
    /// newest).
    public func history(of meetingId: String, viewer: String, beforeSeq: Int64?, limit: Int) async throws -> ChatHistoryPage {
        try Self.checkPage(limit)
        return try await database.reader.read { db in
            try Self.requireMember(viewer, of: meetingId, in: db)
            return try ChatHistoryPage(of: ChatRoomId.meeting(meetingId), before: beforeSeq, limit: limit, in: db)
        }
    }

    /// The room's messages after `seq`, oldest first, at most `limit`: what a resuming
    /// subscriber missed. The caller has checked membership.
    public func messages(of meetingId: String, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: ChatMessage.selection + """
                 WHERE chatMessage.roomId = ? AND chatMessage.seq > ? ORDER BY chatMessage.seq LIMIT ?
                """, arguments: [ChatRoomId.meeting(meetingId), seq, limit]).map(ChatMessage.init(row:))
        }
    }

    /// Counts a message of `user` in `room` against the rate limit: nil when it may go, else
    /// the refusal, `chatMessage.rateLimited` (429), saying how long to wait.
    func rateRefusal(user: String, room: String, at time: Date) -> MeetError? {
        guard let wait = rateLimit.take(user: user, room: room, now: time) else { return nil }
        let seconds = String(Int(wait.rounded(.up)))
        return MeetError("chatMessage.rateLimited", status: 429, arguments: ["retryAfter": seconds], headers: ["Retry-After": seconds])
    }

    /// Whether a post over the rate limit may be looked up as a re-send, within ``resends``.
    func mayBeResent(user: String, room: String, at time: Date) -> Bool {
        resends.take(user: user, room: room, now: time) == nil
    }

    /// Gives a re-send's rate token back, within ``resends``.
    func forgiveResend(user: String, room: String, at time: Date) {
        if mayBeResent(user: user, room: room, at: time) { rateLimit.giveBack(user: user, room: room) }
    }

    /// Refuses a page size outside ``pageLimit``.
    static func checkPage(_ limit: Int) throws {
        guard pageLimit.contains(limit) else {
            throw MeetError.invalidField("limit", "field.outOfRange", arguments: [
                "minimum": String(pageLimit.lowerBound), "maximum": String(pageLimit.upperBound)])
        }
    }

    /// The room's last seq (0 for an empty room), read at once on the calling thread: a relay
    /// reads it when a room gets its first local subscriber, before the subscriber is added,
    /// under the broker's lock on an event loop (so not through the pool: `readWithoutPool`).
    public func lastSeq(of meetingId: String) throws -> Int64 {
        try database.readWithoutPool { db in
            try Int64.fetchOne(db, sql: "SELECT max(seq) FROM chatMessage WHERE roomId = ?",
                               arguments: [ChatRoomId.meeting(meetingId)]) ?? 0
        }
    }

    /// The meeting rooms that took a message at or after `since`, with their last seq: what a
    /// relay compares with what it delivered, to notice a publication that never came.
    public func roomsActive(since: Date) async throws -> [(meetingId: String, lastSeq: Int64)] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT meetingId, lastSeq FROM chatRoom WHERE meetingId IS NOT NULL AND lastMessageAt >= ?
                """, arguments: [since.timeIntervalSince1970]).map { ($0["meetingId"], $0["lastSeq"]) }
        }
    }

    /// The last position in `userId`'s direct inbox (0 when empty): where a node's delivery to
    /// that user's sessions starts when their first session subscribes (read as `lastSeq` is).
    public func lastInboxPosition(of userId: String) throws -> Int64 {
        try database.readWithoutPool { db in
            try Int64.fetchOne(db, sql: "SELECT max(position) FROM directInbox WHERE userId = ?", arguments: [userId]) ?? 0
        }
    }

    /// The users whose direct conversations took a message at or after `since`, with their
    /// inbox's last position: the inboxes a relay compares with what it delivered.
    public func inboxesActive(since: Date) async throws -> [(userId: String, lastPosition: Int64)] {
        try await database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT userId, max(position) AS lastPosition FROM directInbox
                 WHERE userId IN (
                    SELECT conversation.userA FROM directConversation AS conversation
                      JOIN chatRoom ON chatRoom.id = conversation.roomId WHERE chatRoom.lastMessageAt >= :since
                    UNION
                    SELECT conversation.userB FROM directConversation AS conversation
                      JOIN chatRoom ON chatRoom.id = conversation.roomId WHERE chatRoom.lastMessageAt >= :since)
                 GROUP BY userId
                """, arguments: ["since": since.timeIntervalSince1970]).map { ($0["userId"], $0["lastPosition"]) }
        }
    }

    /// Refuses anyone but the organizer and members, answering a private meeting's outsiders
    /// exactly like an unknown meeting.
    static func requireMember(_ userId: String, of meetingId: String, in db: Database) throws {
        let role = try MeetingAccess.role(of: userId, inMeeting: meetingId, in: db)
        guard role == .organizer || role == .member else { throw MeetError.notMember }
    }
}

/// Whether a pass over the event log is queued, and whether another must follow it.
private enum EventReaderState {
    case idle, reading, readingAgain
}

/// Who hears of committed messages and departures; set once the broker exists, which is made
/// after the services. And the event reader, told when a batch failed to read the events.
///
/// The closures live in a struct, never bare in the `Mutex`: `withLock { $0 }` on a
/// `Mutex<(closure)?>` writes the value back through the generic `inout`, wrapping the stored
/// closure in two more reabstraction thunks at every read, so each batch's broadcast would run
/// through a chain as long as the number of batches before it (and overflow the writer's stack
/// after some 10⁵ of them). A struct's closure fields keep their own representation.
final class ChatListener: Sendable {
    private struct Listeners {
        var messages: (@Sendable ([ChatMessage]) -> Void)?
        var departures: (@Sendable ([ChatDeparture]) -> Void)?
        var eventReaderWake: (@Sendable () -> Void)?
    }

    private let listeners = Mutex(Listeners())

    func setMessages(_ announce: @escaping @Sendable ([ChatMessage]) -> Void) {
        listeners.withLock { $0.messages = announce }
    }

    func setDepartures(_ announce: @escaping @Sendable ([ChatDeparture]) -> Void) {
        listeners.withLock { $0.departures = announce }
    }

    func setEventReaderWake(_ wake: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.eventReaderWake = wake }
    }

    func wakeEventReader() {
        listeners.withLock { $0 }.eventReaderWake?()
    }

    /// Departures go first: whoever left does not hear the room's note of it.
    func announce(_ committed: [ChatMessage], _ departed: [ChatDeparture]) {
        let listeners = listeners.withLock { $0 }
        if !departed.isEmpty { listeners.departures?(departed) }
        if !committed.isEmpty { listeners.messages?(committed) }
    }
}
