import Foundation
import GRDB

/// Quiet hours in a time zone: pushes that are not urgent wait until they end.
public struct QuietHours: Codable, Sendable, Equatable {
    /// Local times `HH:mm`; an end before the start runs past midnight (`22:00`–`07:00`).
    public var start: String
    /// Local time `HH:mm` when they end; it may not equal the start.
    public var end: String
    /// An IANA time zone (`Europe/Kyiv`).
    public var timeZone: String

    /// Quiet hours as the client sent them; they are checked when saved.
    public init(start: String, end: String, timeZone: String) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }

    /// Minutes after midnight of `HH:mm`, or nil.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0..<24).contains(hours), (0..<60).contains(minutes) else { return nil }
        return hours * 60 + minutes
    }

    /// The checked minutes and zone, or every field problem at once.
    func checked() throws -> (start: Int, end: Int, zone: TimeZone) {
        var problems: [MeetError.FieldProblem] = []
        let start = Self.minutes(start), end = Self.minutes(end), zone = TimeZone(identifier: timeZone)
        if start == nil { problems.append(.init(field: "quietHours.start", code: "field.invalid")) }
        if end == nil { problems.append(.init(field: "quietHours.end", code: "field.invalid")) }
        if zone == nil { problems.append(.init(field: "quietHours.timeZone", code: "field.invalid")) }
        if let start, let end, start == end { problems.append(.init(field: "quietHours.end", code: "field.invalid")) }
        guard let start, let end, let zone, problems.isEmpty else { throw MeetError.invalidFields(problems) }
        return (start, end, zone)
    }

    /// When the quiet hours around `time` end, or nil when `time` is outside them.
    static func end(around time: Date, start: Int, end: Int, zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: time)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = start < end ? (start..<end).contains(now) : (now >= start || now < end)
        guard inside else { return nil }
        return calendar.nextDate(
            after: time, matching: DateComponents(hour: end / 60, minute: end % 60), matchingPolicy: .nextTime)
    }
}

/// What each user wants pushed or mailed: quiet hours, the threads (meetings, direct
/// conversations) they muted, the
/// mail topics they turned off. The inbox keeps everything either way; these only hold back
/// or drop the pushes and mails.
public struct NotificationPreferences: Sendable {
    /// Kinds pushed even in quiet hours: someone may be on their way to a cancelled meeting.
    static let urgentKinds: Set<String> = [DomainEvent.Kind.meetingCancelled.rawValue]

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// Preferences on `database` that date mutes with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// `userId`'s quiet hours, if set.
    public func quietHours(of userId: String) async throws -> QuietHours? {
        try await database.quickRead { db in
            try Row.fetchOne(db, sql: "SELECT * FROM notificationSetting WHERE userId = ?", arguments: [userId]).map { row in
                QuietHours(start: Self.text(row["quietStart"]), end: Self.text(row["quietEnd"]), timeZone: row["timeZone"])
            }
        }
    }

    /// Sets (or, with nil, removes) `userId`'s quiet hours.
    /// - Throws: 422 naming `quietHours.start`, `.end` or `.timeZone` when one is not valid.
    public func setQuietHours(_ hours: QuietHours?, of userId: String) async throws {
        let checked = try hours?.checked()
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM notificationSetting WHERE userId = ?", arguments: [userId])
            if let checked, let hours {
                try db.execute(sql: "INSERT INTO notificationSetting (userId, quietStart, quietEnd, timeZone) VALUES (?, ?, ?, ?)",
                               arguments: [userId, checked.start, checked.end, hours.timeZone])
            }
        }
    }

    /// Which notifications `userId` also gets by e-mail.
    public func emailSettings(of userId: String) async throws -> EmailSettings {
        try await database.quickRead { db in try EmailSettings.of(userId, db) }
    }

    /// Replaces `userId`'s e-mail settings; mails already queued still go.
    public func setEmailSettings(_ settings: EmailSettings, of userId: String) async throws {
        try await database.writer.write { db in try settings.save(for: userId, db) }
    }

    /// Mutes (or unmutes) the pushes of meeting `meetingId` for `userId`.
    /// - Throws: `meeting.notFound` for a meeting the user may not see.
    public func setMuted(_ muted: Bool, meeting meetingId: String, for userId: String) async throws {
        _ = try await MeetingAccess.role(of: userId, inMeeting: meetingId, in: database)
        try await database.writer.write { [now] db in
            try Self.setMuted(muted, thread: "meeting.\(meetingId)", for: userId, at: now(), db)
        }
    }

    /// Mutes (or unmutes) the pushes of `userId`'s direct conversation with `peerId` (its thread
    /// is the room id); a muted conversation's messages queue no push at all.
    /// - Throws: `user.notFound` for anyone who is not their friend (only friends write).
    public func setMuted(_ muted: Bool, conversationWith peerId: String, for userId: String) async throws {
        try await database.writer.write { [now] db in
            try DirectConversation.requireFriends(userId, peerId, in: db)
            try Self.setMuted(muted, thread: ChatRoomId.direct(userId, peerId), for: userId, at: now(), db)
        }
    }

    private static func setMuted(_ muted: Bool, thread: String, for userId: String, at time: Date, _ db: Database) throws {
        if muted {
            try db.execute(sql: "INSERT OR IGNORE INTO notificationMute (userId, thread, createdAt) VALUES (?, ?, ?)",
                           arguments: [userId, thread, time])
        } else {
            try db.execute(sql: "DELETE FROM notificationMute WHERE userId = ? AND thread = ?", arguments: [userId, thread])
        }
    }

    /// When the pushes of `notification` may go (seconds since 1970), or nil for none.
    static func pushDue(of notification: InboxNotification, at now: Double, _ db: Database) throws -> Double? {
        let muted = try Bool.fetchOne(db, sql: "SELECT 1 FROM notificationMute WHERE userId = ? AND thread = ?",
                                      arguments: [notification.userId, notification.thread]) ?? false
        if muted { return nil }
        guard !urgentKinds.contains(notification.kind),
              let row = try Row.fetchOne(db, sql: "SELECT * FROM notificationSetting WHERE userId = ?", arguments: [notification.userId]),
              let zone = TimeZone(identifier: row["timeZone"]),
              let end = QuietHours.end(around: Date(timeIntervalSince1970: now), start: row["quietStart"], end: row["quietEnd"], zone: zone)
        else { return now }
        return end.timeIntervalSince1970
    }

    private static func text(_ minutes: Int) -> String {
        String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
