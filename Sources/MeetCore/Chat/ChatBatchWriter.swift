import Foundation
import GRDB
import Synchronization

/// One write to the rooms, queued for group commit (``ChatCommitQueue``).
enum ChatWrite: Sendable {
    case post(ChatService.Post)
    /// A direct message (``DirectConversation``).
    case direct(DirectConversation.Post)
    case change(ChatChange)
    /// A pass over the domain-event log (``ChatEvents``).
    case events
    /// A post over the rate limit that the pool found no original for, looked up again after
    /// the writes queued before it (``ChatService/repeated(_:by:in:over:mayPost:)``).
    case resend(ChatResend)
}

/// A re-send to look up on the writer: its original may have been queued before it and not
/// committed yet when the pool was read (a phone that reconnected while waiting for its
/// RECEIPT). Answered with the original, else refused with `refusal`.
struct ChatResend: Sendable {
    var draft: ChatDraft
    var senderId: String
    var roomId: String
    var refusal: MeetError
    /// Whether the sender may still post to the room (a member, a friend).
    var mayPost: @Sendable (Database) throws -> Bool
}

/// What one write did: the rows it appended and the members who left rooms, announced after
/// the commit (departures first), and a post's answer.
struct ChatWritten: Sendable {
    var appended: [ChatMessage] = []
    var posted: ChatService.Posted?
    var departures: [ChatDeparture] = []
    /// After a pass over the event log: whether more events may be waiting.
    var eventsPending = false
}

/// What a batch wrote: the domain events it read before its writes, to be announced first
/// (``ChatBatchWriter/write(_:eventsRecorded:in:)``), and each write's outcome, in order.
struct ChatBatchWritten: Sendable {
    var events = ChatWritten()
    var outcomes: [Result<ChatWritten, any Error>]
}

/// Writes a batch in one transaction, each write in its own savepoint so that one refused
/// write does not undo the others.
///
/// A batch's posts by members are written together rather than one by one: one query looks
/// them all up (``ChatPostLookup``), every refusal is decided before a post takes its seq, and
/// each room's seq is read and written back once per batch (``ChatRoomLog/Seqs``). A post the
/// look-up has no plain answer for (a sender who is not a member, a `clientMessageId` stored
/// already or repeated inside the batch), and every post after another kind of write, takes the
/// per-post path, which answers exactly as before.
struct ChatBatchWriter: Sendable {
    /// How long a room's pushes wait for more messages (``ChatPushes``).
    let pushDelay: TimeInterval
    /// The members found posting before, kept between batches.
    let posters: ChatPosters
    /// Who would get a room's pushes, kept between batches.
    let audience: ChatPushAudience
    /// Set when a batch that was to read the domain events first failed as a whole: the
    /// signals that asked for it (``ChatPosters/catchUp(in:)``'s and `eventsRecorded`) are
    /// spent, and the events' reading was rolled back with the batch.
    private let eventsLeftUnread = EventsLeftUnread()

    private final class EventsLeftUnread: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    /// What the batch's plain posts share: who waits for a push, and the seqs they took.
    private struct Shared {
        var waiting: ChatPushes.Waiting
        var seqs: ChatRoomLog.Seqs
    }

    /// A post's `clientMessageId` in its room, as `chatMessage_client` keys it. Hashed by the
    /// `clientMessageId` alone, which seldom repeats across rooms or senders: hashing all three
    /// was 2 % of a post's instructions.
    private struct PostKey: Hashable {
        var meetingId: String
        var senderId: String
        var clientMessageId: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(clientMessageId)
        }
    }

    /// Writes `writes` on the writer's connection `db` (on its queue: ``ChatCommitQueue``),
    /// and returns once they are committed, or every one's failure. The domain events waiting
    /// are read first when another connection committed since the last batch (the admin CLI)
    /// or `eventsRecorded` says this process recorded one (``readEvents(in:)``), and after a
    /// batch that was to read them failed as a whole.
    func write(_ writes: [ChatWrite], eventsRecorded: Bool = false, in db: Database) -> ChatBatchWritten {
        var events = ChatWritten()
        var readsEvents = eventsRecorded || eventsLeftUnread.isSet.exchange(false, ordering: .relaxed)
        do {
            // WAL with FULL syncs the log at every commit: what was answered survives a
            // power loss. The rest of the app keeps NORMAL (AppDatabase).
            try db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute()
            defer { try? db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute() }
            var outcomes: [Result<ChatWritten, any Error>] = []
            outcomes.reserveCapacity(writes.count)
            var shared = Shared(waiting: ChatPushes.Waiting(audience: audience), seqs: ChatRoomLog.Seqs())
            var generation: UInt64 = 0
            try db.inTransaction {
                let otherConnectionCommitted = try posters.catchUp(in: db)
                if otherConnectionCommitted { audience.forget() }
                generation = audience.generation
                readsEvents = readsEvents || otherConnectionCommitted
                if readsEvents {
                    events = readEvents(in: db)
                    try Self.requireTransaction(db)
                }
                var lookup: ChatPostLookup? = try ChatPostLookup(writes, posters: posters, in: db)
                var posted = Set<PostKey>(minimumCapacity: writes.count)
                for (index, write) in writes.enumerated() {
                    if case .post(let post) = write {
                        // A key's second post must find the first, stored: the per-post path.
                        let isFirst = posted.insert(PostKey(meetingId: post.meetingId, senderId: post.senderId,
                                                            clientMessageId: post.draft.clientMessageId)).inserted
                        if isFirst, let access = lookup?[index], access.isRepeat != true {
                            outcomes.append(Result { try appendLookedUp(post, access, &shared, in: db) })
                            try Self.requireTransaction(db)
                            continue
                        }
                    } else {
                        // The look-up describes the database before this write: the posts after
                        // it go one by one.
                        lookup = nil
                    }
                    // The per-post path and other writes bump a room's stored seq themselves.
                    try shared.seqs.flush(in: db)
                    outcomes.append(Result {
                        var written = ChatWritten()
                        var attempt = shared.waiting
                        try inSavepoint(db) {
                            written = try perform(write, waiting: &attempt, in: db)
                        }
                        // What a refused write queued was rolled back with its savepoint.
                        shared.waiting = attempt
                        return written
                    })
                    try Self.requireTransaction(db)
                }
                // A failure here fails the whole batch, as a failed commit does.
                try shared.seqs.flush(in: db)
                return .commit
            }
            audience.keep(shared.waiting.read, readSince: generation)
            return ChatBatchWritten(events: events, outcomes: outcomes)
        } catch {
            if readsEvents { eventsLeftUnread.isSet.store(true, ordering: .relaxed) }
            return ChatBatchWritten(outcomes: writes.map { _ in .failure(error) })
        }
    }

    /// Reads the domain events waiting, ahead of the batch's writes, so that rows stored
    /// outside the group commit are announced before the batch's, in seq order: a moderator's
    /// redaction (by the admin CLI, or by this process's `/admin` routes) takes the room's next
    /// seq itself, and announced after a later post, a client that saw the post and resumed from
    /// its seq would never learn of it. A failure leaves them to the event reader's own pass.
    private func readEvents(in db: Database) -> ChatWritten {
        var read = ChatWritten()
        do {
            repeat {
                let page = try inSavepoint(db) { try ChatEvents.consume(in: db) }
                read.appended += page.appended
                read.departures += page.departures
                read.eventsPending = page.eventsPending
            } while read.eventsPending
        } catch {
            read.eventsPending = true
        }
        return read
    }

    /// Stores a member's post with its room's next seq, the look-up having found its sender a
    /// member and its `clientMessageId` new or not asked. Refusals (read-only room, reply,
    /// attachments) are decided by reads before anything is written; the seq is taken once the
    /// row is kept. A post that only inserts its row (the room exists, nobody gets a push) needs
    /// no savepoint: a statement that fails leaves nothing behind. One that also writes the room
    /// or pushes has them in a savepoint, so that a failure undoes all of its writes. A post
    /// whose insert finds it repeats an earlier one writes nothing and is answered with it.
    private func appendLookedUp(_ post: ChatService.Post, _ access: ChatPostLookup.Access, _ shared: inout Shared,
                                in db: Database) throws -> ChatWritten {
        let poster = access.poster
        guard !poster.isCancelled else { throw MeetError.roomReadOnly }
        let entry = try ChatRoomLog.message(post.draft, text: post.text, by: post.senderId,
                                            checkedIn: ChatRoomId.meeting(post.meetingId), db)
        let recipients = try shared.waiting.recipients(inMeeting: post.meetingId, besides: post.senderId, db)
        let message: ChatMessage
        do {
            if recipients.isEmpty, try shared.seqs.hasRoom(ofMeeting: post.meetingId, db) {
                message = try shared.seqs.append(entry, toMeeting: post.meetingId, sender: poster.sender, at: post.at, in: db)
            } else {
                message = try inSavepoint(db) {
                    let appended = try shared.seqs.append(entry, toMeeting: post.meetingId, sender: poster.sender, at: post.at,
                                                          in: db)
                    try ChatPushes.enqueue(appended, inMeeting: post.meetingId, title: poster.title, delay: pushDelay,
                                           to: recipients, in: db)
                    return appended
                }
                shared.waiting.queued(recipients, in: post.meetingId)
            }
        } catch is ChatRoomLog.Repeated {
            guard let earlier = try ChatRoomLog.repeated(post.draft, by: post.senderId, in: ChatRoomId.meeting(post.meetingId), db)
            else { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a repeated chat post's original is missing") }
            return ChatWritten(posted: .init(message: earlier, isRepeat: true))
        }
        shared.seqs.appended(message, toMeeting: post.meetingId)
        return ChatWritten(appended: [message], posted: .init(message: consume message, isRepeat: false))
    }

    /// Fails the whole batch once SQLite has rolled its transaction back (it may on a full disk,
    /// an I/O error or no memory): the writes after it would run on their own, outside the
    /// batch, and the fast path's inserts bypass GRDB's own check for that. Their seqs would
    /// land above the room's stored last one, out of reach of every later post.
    private static func requireTransaction(_ db: Database) throws {
        guard db.isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the chat batch's transaction was rolled back")
        }
    }

    /// Runs `body` in a savepoint of the batch's transaction, rolled back if it throws: GRDB's
    /// `inSavepoint` compiled its statements anew for every write (3 % of a post's CPU), these
    /// are cached. Refused outside the transaction (one SQLite rolled back on an error), where a
    /// savepoint would begin, and its release commit, a transaction of its own.
    private func inSavepoint<Value>(_ db: Database, _ body: () throws -> Value) throws -> Value {
        try Self.requireTransaction(db)
        try db.cachedStatement(sql: "SAVEPOINT chatWrite").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT chatWrite").execute()
            return result
        } catch {
            try? db.cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT chatWrite").execute()
            try? db.cachedStatement(sql: "RELEASE SAVEPOINT chatWrite").execute()
            throw error
        }
    }

    private func perform(_ write: ChatWrite, waiting: inout ChatPushes.Waiting, in db: Database) throws -> ChatWritten {
        switch write {
        case .post(let post):
            let posted = try append(post, waiting: &waiting, in: db)
            return ChatWritten(appended: posted.isRepeat ? [] : [posted.message], posted: posted)
        case .direct(let post):
            let posted = try DirectConversation.append(post, in: db)
            if !posted.isRepeat { try ChatPushes.enqueue(posted.message, toPeer: post.peerId, delay: pushDelay, in: db) }
            return ChatWritten(appended: posted.isRepeat ? [] : [posted.message], posted: posted)
        case .change(let change):
            return ChatWritten(appended: try change.apply(in: db).map { [$0] } ?? [])
        case .events:
            return try ChatEvents.consume(in: db)
        case .resend(let resend):
            guard try resend.mayPost(db), let original = try ChatRoomLog.repeated(resend.draft, by: resend.senderId, in: resend.roomId, db) else {
                throw resend.refusal
            }
            return ChatWritten(posted: .init(message: original, isRepeat: true))
        }
    }

    /// Stores one post with its room's next seq, or finds the one it repeats.
    private func append(_ post: ChatService.Post, waiting: inout ChatPushes.Waiting, in db: Database) throws -> ChatService.Posted {
        let roomId = ChatRoomId.meeting(post.meetingId)
        guard let meeting = try MeetingAccess.roomAccess(of: post.senderId, toMeeting: post.meetingId, in: db) else {
            // Not a member: the refusal a private meeting's outsider gets is "not found".
            _ = try MeetingRecord.visible(post.meetingId, to: post.senderId, in: db)
            throw MeetError.notMember
        }
        if let earlier = try ChatRoomLog.repeated(post.draft, by: post.senderId, in: roomId, db) {
            return .init(message: earlier, isRepeat: true)
        }
        guard !meeting.isCancelled else { throw MeetError.roomReadOnly }
        let message = try ChatRoomLog.appendMessage(post.draft, text: post.text, by: post.senderId,
                                                    toRoom: roomId, kind: .meeting, meetingId: post.meetingId, at: post.at, in: db)
        try ChatPushes.enqueue(message, inMeeting: post.meetingId, title: meeting.title, delay: pushDelay, waiting: &waiting, in: db)
        return .init(message: message, isRepeat: false)
    }
}
