import Foundation
import GRDB

/// One write to the rooms, queued for group commit (``ChatCommitQueue``).
enum ChatWrite: Sendable {
    case post(ChatService.Post)
    /// A direct message (``DirectConversation``).
    case direct(DirectConversation.Post)
    case change(ChatChange)
    /// A pass over the domain-event log (``ChatEvents``).
    case events
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

/// Writes a batch in one transaction, each write in its own savepoint so that one refused
/// write does not undo the others.
struct ChatBatchWriter: Sendable {
    /// How long a room's pushes wait for more messages (``ChatPushes``).
    let pushDelay: TimeInterval

    /// Writes `writes` on the writer's connection `db` (on its queue: ``ChatCommitQueue``),
    /// and returns once they are committed, or every one's failure.
    func write(_ writes: [ChatWrite], in db: Database) -> [Result<ChatWritten, any Error>] {
        do {
            // WAL with FULL syncs the log at every commit: what was answered survives a
            // power loss. The rest of the app keeps NORMAL (AppDatabase).
            try db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute()
            defer { try? db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute() }
            var outcomes: [Result<ChatWritten, any Error>] = []
            var waiting = ChatPushes.Waiting()
            try db.inTransaction {
                outcomes = writes.map { write in
                    Result {
                        var written = ChatWritten()
                        var attempt = waiting
                        try db.inSavepoint {
                            written = try perform(write, waiting: &attempt, in: db)
                            return .commit
                        }
                        // What a refused write queued was rolled back with its savepoint.
                        waiting = attempt
                        return written
                    }
                }
                return .commit
            }
            return outcomes
        } catch {
            return writes.map { _ in .failure(error) }
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
