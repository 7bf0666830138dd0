import GRDB

/// How a user stands towards a meeting; it decides what they may see and do.
public enum MeetingRole: String, Codable, Sendable {
    case organizer, member
    /// Invited and not answered yet; whoever declined, left or was removed is an outsider again.
    case invitee
    /// Anyone else: sees a public meeting, and nothing at all of a private one.
    case outsider
}

extension MeetingRecord {
    /// The user's role in this meeting.
    ///
    /// Every chat post and subscription asks this, so its reads are cached statements: compiled
    /// once per connection instead of once per call (compiling, with GRDB's authorizer, cost
    /// more than the reads themselves).
    func role(of userId: String, in db: Database) throws -> MeetingRole {
        if organizerId == userId { return .organizer }
        if try MeetingMemberRecord.exists(db, meetingId: id, userId: userId) { return .member }
        let invited = try Bool.fetchOne(db.cachedStatement(
            sql: "SELECT EXISTS (SELECT 1 FROM invitation WHERE meetingId = ? AND inviteeId = ? AND status = 'pending')"),
            arguments: [id, userId]) ?? false
        return invited ? .invitee : .outsider
    }

    /// The meeting `id` and the caller's role in it, or `meeting.notFound` when it does not
    /// exist, when the caller is neither organizer nor member and the organizer and the caller
    /// blocked each other (an invitation does not outlive a block: ``MeetingBlocks``), or when
    /// the caller is an outsider and the meeting private: its existence is not revealed.
    static func visible(_ id: String, to userId: String, in db: Database) throws -> (MeetingRecord, MeetingRole) {
        guard let meeting = try MeetingRecord.fetchOne(
            db.cachedStatement(sql: "SELECT \(MeetingRecord.columnList) FROM meeting WHERE id = ?"), arguments: [id]) else {
            throw MeetError.meetingNotFound
        }
        let role = try meeting.role(of: userId, in: db)
        switch role {
        case .organizer, .member:
            break
        case .invitee, .outsider:
            if role == .outsider && meeting.visibility == .private { throw MeetError.meetingNotFound }
            if try Blocks.isBlocked(db, userId, meeting.organizerId) { throw MeetError.meetingNotFound }
        }
        return (meeting, role)
    }

    func activityIds(in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT activityId FROM meetingActivity WHERE meetingId = ? ORDER BY activityId", arguments: [id])
    }

    func memberIds(in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT userId FROM meetingMember WHERE meetingId = ?", arguments: [id])
    }
}

extension MeetError {
    static let meetingNotFound = MeetError("meeting.notFound", status: 404)
    static let notOrganizer = MeetError("meeting.notOrganizer", status: 403)
    static let meetingCancelled = MeetError("meeting.cancelled", status: 409)
}

/// What other areas (chat, calendar, notifications) ask about a meeting.
public enum MeetingAccess {
    /// The user's role in the meeting, or `meeting.notFound` if the meeting does not exist or
    /// is private and the user may not know about it (so chat answers exactly like a read).
    public static func role(of userId: String, inMeeting meetingId: String, in db: Database) throws -> MeetingRole {
        if let access = try roomAccess(of: userId, toMeeting: meetingId, in: db) { return access.role }
        return try MeetingRecord.visible(meetingId, to: userId, in: db).1
    }

    /// The organizer's or a member's role in meeting `meetingId`, with what a post to its room
    /// needs (title, cancelled), or nil for anyone else (and for no such meeting, and for a
    /// banned user, whose memberships stay but whose posts in flight must not be stored): then
    /// ``MeetingRecord/visible(_:to:in:)`` says which refusal applies. One cached statement
    /// reading three columns by position, since every chat post and SEND asks this: decoding
    /// the whole meeting record looked its columns up by name, which cost more than the read.
    static func roomAccess(of userId: String, toMeeting meetingId: String,
                           in db: Database) throws -> (role: MeetingRole, title: String, isCancelled: Bool)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                  SELECT organizerId = ?2, title, cancelledAt IS NOT NULL FROM meeting
                  WHERE id = ?1 AND (organizerId = ?2 OR EXISTS (SELECT 1 FROM meetingMember WHERE meetingId = ?1 AND userId = ?2))
                    AND NOT EXISTS (SELECT 1 FROM user WHERE user.id = ?2 AND user.banned)
                  """), arguments: [meetingId, userId])
        else { return nil }
        return (role: row[0] ? .organizer : .member, title: row[1], isCancelled: row[2])
    }

    /// The same, read from `database` (a quick read), for callers without a
    /// `Database` at hand (STOMP's authorizer).
    public static func role(of userId: String, inMeeting meetingId: String, in database: AppDatabase) async throws -> MeetingRole {
        try await database.quickRead { db in try role(of: userId, inMeeting: meetingId, in: db) }
    }
}
