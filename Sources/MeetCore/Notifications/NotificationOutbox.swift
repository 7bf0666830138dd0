import Foundation
import GRDB

/// Turns domain events into inbox entries, push jobs and mails inside the transaction that records
/// the event (``DomainEvent/record(in:at:)`` calls it): a notification exists exactly when
/// the change it tells of was committed, and none is lost between the two.
enum NotificationOutbox {
    /// The entries `event` makes, written with one push job per enabled device of each
    /// recipient; a withdrawn friend request takes back the notification of it.
    static func enqueue(_ event: DomainEvent, in db: Database, at time: Date) throws {
        if event.kind == .friendRequestCancelled {
            let payload = try decoder.decode(FriendEventPayload.self, from: event.payload)
            try InboxNotification
                .filter(Column("kind") == DomainEvent.Kind.friendRequestSent.rawValue && Column("subjectId") == payload.requestId)
                .deleteAll(db)
            return
        }
        let mailed = try isMailed(event)
        for var notification in try notifications(for: event, at: time, db) {
            try notification.insert(db)
            try enqueuePushes(of: notification, at: time.timeIntervalSince1970, db)
            if mailed { try MailOutbox.enqueue(notification, at: time.timeIntervalSince1970, db) }
        }
    }

    /// One push job per enabled device of the notification's user, due at `notBefore` at the
    /// earliest. None for a muted thread; held until the end of the user's quiet hours unless urgent.
    static func enqueuePushes(of notification: InboxNotification, at now: Double, notBefore: Double? = nil, _ db: Database) throws {
        guard let dueAt = try NotificationPreferences.pushDue(of: notification, at: now, db) else { return }
        try db.execute(sql: """
            INSERT INTO pushJob (notificationId, deviceId, state, attempts, dueAt, updatedAt)
            SELECT ?, id, 'pending', 0, ?, ? FROM device WHERE userId = ? AND disabledAt IS NULL
            """, arguments: [notification.id, max(dueAt, notBefore ?? dueAt), now, notification.userId])
    }

    /// Fields whose change moves a meeting: an edit of one of them is worth a mail.
    static let movingFields: Set<String> = ["startsAt", "endsAt", "place", "online"]

    /// Whether the event's notifications may be mailed (``MailOutbox`` decides by kind and
    /// setting): an edit only when it moves the meeting, not for a new title or description.
    private static func isMailed(_ event: DomainEvent) throws -> Bool {
        guard event.kind == .meetingEdited else { return true }
        let payload = try decoder.decode(MeetingEventPayload.self, from: event.payload)
        return !movingFields.isDisjoint(with: payload.changedFields ?? [])
    }

    /// Events that tell someone something; the rest (a meeting created, a member removed
    /// in silence) make no notification.
    static let meetingKinds: Set<DomainEvent.Kind> = [
        .meetingEdited, .meetingCancelled, .meetingJoined, .meetingLeft, .meetingMemberRemoved, .invitationSent,
        .invitationAccepted, .invitationDeclined,
    ]
    static let friendKinds: Set<DomainEvent.Kind> = [.friendRequestSent, .friendRequestAccepted]

    private static func notifications(for event: DomainEvent, at time: Date, _ db: Database) throws -> [InboxNotification] {
        let kind = event.kind.rawValue
        if meetingKinds.contains(event.kind) {
            let payload = try decoder.decode(MeetingEventPayload.self, from: event.payload)
            let actor = try String.fetchOne(db, sql: "SELECT displayName FROM user WHERE id = ?", arguments: [payload.actorId]) ?? ""
            return payload.recipients.map { recipient in
                InboxNotification(
                    id: RandomToken.id(), userId: recipient, kind: kind, subjectId: payload.meetingId,
                    deeplink: Deeplink.meeting(payload.meetingId), thread: "meeting.\(payload.meetingId)",
                    arguments: ["actor": actor, "title": payload.title], createdAt: time)
            }
        }
        if friendKinds.contains(event.kind) {
            let payload = try decoder.decode(FriendEventPayload.self, from: event.payload)
            return payload.recipients.map { recipient in
                InboxNotification(
                    id: RandomToken.id(), userId: recipient, kind: kind, subjectId: payload.requestId,
                    deeplink: Deeplink.friendRequests, thread: "friends", arguments: ["actor": payload.actorName],
                    createdAt: time)
            }
        }
        return []
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
