import Foundation
import GRDB

/// Pushes about chat messages, for members who are away from the room.
///
/// A message queues, in the transaction that stores it, one notification per member with a
/// device (not the sender, not those who muted the meeting) whose pushes wait for
/// ``delay``: while that room's notification is still waiting, further messages add nothing,
/// so a burst becomes one push. Its text is written when the dispatcher claims it, from what
/// is unread then ("Ann and 2 others: …", "3 new messages"), and a member who has read
/// everything by then gets none. Chat notifications are not inbox entries: the room list has
/// their unread counts, and the badge adds them up.
public enum ChatPushes {
    /// The notification kind of chat pushes (keys `notification.chat.message.*`, and
    /// `notification.chat.messages.title` for several messages).
    public static let kind = "chat.message"
    /// How long a room's first unread message waits for the ones that follow it.
    public static let defaultDelay: TimeInterval = 5
    /// The most characters of a message's text a push shows.
    static let textLimit = 180

    /// The members of each meeting who would get a push for a new message now (not yet
    /// excluding its sender), as found by a group commit's first post to that room and kept up
    /// to date by its next ones: within one transaction only its own pushes change who is
    /// waiting (devices, mutes, memberships and sent pushes change in other transactions), so
    /// a room's 50 posts of a batch ask the database once instead of probing every member 50
    /// times. A value: the group commit keeps a post's changes only once its savepoint is
    /// released.
    struct Waiting {
        private var members: [String: Set<String>] = [:]
        /// The rooms this transaction read from the database, as read, for ``ChatPushAudience``.
        private(set) var read: [String: Set<String>] = [:]
        /// What earlier transactions read, where it still holds.
        private let audience: ChatPushAudience

        /// An empty memo, for one transaction, starting from what `audience` kept.
        init(audience: ChatPushAudience) {
            self.audience = audience
        }

        /// Who of `meetingId`'s members get a push for a new message of `senderId` now.
        mutating func recipients(inMeeting meetingId: String, besides senderId: String, _ db: Database) throws -> Set<String> {
            if members[meetingId] == nil {
                if let kept = audience.members(of: meetingId) {
                    members[meetingId] = kept
                } else {
                    let found = Set(try String.fetchAll(db.cachedStatement(sql: meetingRecipients),
                                                        arguments: [meetingId, ChatPushes.thread(of: meetingId)]))
                    members[meetingId] = found
                    read[meetingId] = found
                }
            }
            // A copy shares the memo's storage until the sender is in it: most posts, whose
            // room has nobody left to push, allocate nothing (`subtracting` built two sets).
            var recipients = members[meetingId]!
            recipients.remove(senderId)
            return recipients
        }

        /// `recipients` have a push of `meetingId` waiting now: no more until it is sent. Call
        /// once their pushes are kept (their savepoint released).
        mutating func queued(_ recipients: Set<String>, in meetingId: String) {
            // Most posts queue none: then the memo stays as it is, not copied for a savepoint.
            guard !recipients.isEmpty else { return }
            members[meetingId]?.subtract(recipients)
        }
    }

    /// Queues the pushes of a member's new `message` in the room of meeting `meetingId`;
    /// `waiting` is the transaction's memo of who would get one.
    static func enqueue(_ message: ChatMessage, inMeeting meetingId: String, title: String, delay: TimeInterval,
                        waiting: inout Waiting, in db: Database) throws {
        guard message.type == .message, let senderId = message.senderId else { return }
        let recipients = try waiting.recipients(inMeeting: meetingId, besides: senderId, db)
        try enqueue(message, inMeeting: meetingId, title: title, delay: delay, to: recipients, in: db)
        waiting.queued(recipients, in: meetingId)
    }

    /// Queues the pushes of a member's new `message` in the room of meeting `meetingId` for
    /// `recipients`, as ``Waiting/recipients(inMeeting:besides:_:)`` found them (the caller
    /// tells the memo once they are kept).
    static func enqueue(_ message: ChatMessage, inMeeting meetingId: String, title: String, delay: TimeInterval,
                        to recipients: Set<String>, in db: Database) throws {
        guard message.type == .message, !recipients.isEmpty else { return }
        let now = message.sentAt.timeIntervalSince1970
        let thread = Self.thread(of: meetingId)
        for recipient in recipients.sorted() {
            var notification = InboxNotification(
                id: RandomToken.id(), userId: recipient, kind: kind, subjectId: meetingId,
                deeplink: Deeplink.chat(meetingId), thread: thread, arguments: ["title": title], createdAt: message.sentAt)
            try notification.insert(db)
            try NotificationOutbox.enqueuePushes(of: notification, at: now, notBefore: now + delay, db)
        }
    }

    /// The notification thread of a meeting's room (what a member mutes).
    private static func thread(of meetingId: String) -> String {
        "meeting.\(meetingId)"
    }

    /// Queues the push of a direct `message` to its other member `peerId`, as a meeting post's:
    /// none if they muted the conversation (thread: the room id), else
    /// one waiting notification per conversation (subject: the room id, deeplink: the sender),
    /// titled with the sender's name, so that it reads "Ann: …" or "Ann: 3 new messages".
    static func enqueue(_ message: ChatMessage, toPeer peerId: String, delay: TimeInterval, in db: Database) throws {
        guard message.type == .message, let senderId = message.senderId else { return }
        let now = message.sentAt.timeIntervalSince1970
        let waiting = try Bool.fetchOne(db.cachedStatement(sql: peerWaiting), arguments: [peerId, message.roomId]) ?? false
        guard waiting else { return }
        var notification = InboxNotification(
            id: RandomToken.id(), userId: peerId, kind: kind, subjectId: message.roomId,
            deeplink: Deeplink.direct(senderId), thread: message.roomId,
            arguments: ["title": message.senderName ?? ""], createdAt: message.sentAt)
        try notification.insert(db)
        try NotificationOutbox.enqueuePushes(of: notification, at: now, notBefore: now + delay, db)
    }

    // The queries below run in the chat's group commit for every message, so they are cached
    // statements, and the notification kind is written into them rather than bound: with the
    // partial index `chatPushByAge` (`WHERE kind = 'chat.message'`), SQLite re-compiles a
    // statement each time a parameter compared with `kind` is bound, cached or not.

    /// Members of meeting ?1 who get a push for a new message (but its sender): those with a
    /// device, who did not mute the thread ?2 and have no push of the room waiting yet.
    /// The device test comes first, the cheapest refusal for most members.
    private static let meetingRecipients = """
        SELECT member.userId FROM meetingMember AS member
        WHERE member.meetingId = ?1
          AND EXISTS (SELECT 1 FROM device WHERE device.userId = member.userId AND device.disabledAt IS NULL)
          AND NOT EXISTS (SELECT 1 FROM notificationMute AS mute WHERE mute.userId = member.userId AND mute.thread = ?2)
          AND NOT EXISTS (\(pendingPush(user: "member.userId", subject: "?1")))
        """

    /// Whether the peer ?1 of a direct conversation (room ?2) gets a push for a new message.
    private static let peerWaiting = """
        SELECT EXISTS (SELECT 1 FROM device WHERE userId = ?1 AND disabledAt IS NULL)
           AND NOT EXISTS (SELECT 1 FROM notificationMute WHERE userId = ?1 AND thread = ?2)
           AND NOT EXISTS (\(pendingPush(user: "?1", subject: "?2")))
        """

    /// A chat push of `user` about `subject` still waiting. CROSS JOIN keeps SQLite from
    /// scanning every pending job (index `pushJobDue`) for each member: it looks the user's
    /// notification up first, then its jobs.
    private static func pendingPush(user: String, subject: String) -> String {
        """
        SELECT 1 FROM notification CROSS JOIN pushJob ON pushJob.notificationId = notification.id
        WHERE notification.userId = \(user) AND notification.kind = '\(kind)' AND notification.subjectId = \(subject)
          AND pushJob.state = 'pending'
        """
    }

    /// Whether a chat notification's subject is a direct conversation (its room id) rather than
    /// a meeting (whose id names the room).
    public static func isDirect(_ subjectId: String) -> Bool {
        subjectId.hasPrefix(ChatRoomKind.direct.rawValue + ":")
    }

    /// `notification` with the text of what its user has not read in the room yet, or nil
    /// when they have read it all (or it was deleted): then there is nothing to push.
    static func compose(_ notification: InboxNotification, in db: Database) throws -> InboxNotification? {
        let roomId = isDirect(notification.subjectId) ? notification.subjectId : ChatRoomId.meeting(notification.subjectId)
        let unread: SQL = """
            FROM chatMessage WHERE roomId = \(roomId) AND type = 'message' AND deletedAt IS NULL
              AND senderId IS NOT \(notification.userId)
              AND seq > COALESCE((SELECT lastReadSeq FROM chatReadMarker WHERE roomId = \(roomId) AND userId = \(notification.userId)), 0)
            """
        guard let summary = try Row.fetchOne(db, SQLRequest<Row>(literal: """
                  SELECT COUNT(*) AS count, COUNT(DISTINCT senderId) AS senders, MAX(seq) AS lastSeq \(unread)
                  """)),
              let lastSeq = summary["lastSeq"] as Int64?,
              let last = try Row.fetchOne(db, sql: ChatMessage.selection + " WHERE chatMessage.roomId = ? AND chatMessage.seq = ?",
                                          arguments: [roomId, lastSeq]).map(ChatMessage.init(row:))
        else { return nil }
        var composed = notification
        composed.arguments["count"] = String(summary["count"] as Int)
        composed.arguments["others"] = String((summary["senders"] as Int) - 1)
        composed.arguments["sender"] = last.senderName ?? ""
        composed.arguments["text"] = excerpt(of: last)
        composed.arguments["seq"] = String(lastSeq)
        return composed
    }

    /// The message's text, cut at ``textLimit`` characters; a camera for photos without text.
    static func excerpt(of message: ChatMessage) -> String {
        guard let text = message.text, !text.isEmpty else { return message.attachments.isEmpty ? "" : "📷" }
        guard text.count > textLimit else { return text }
        return text.prefix(textLimit).trimmingCharacters(in: .whitespacesAndNewlines) + "…"
    }
}
