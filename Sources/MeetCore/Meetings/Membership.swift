import Foundation
import GRDB

/// A row of `meetingMember`.
struct MeetingMemberRecord: Codable, FetchableRecord, PersistableRecord, EpochTimes, Sendable {
    static let databaseTableName = "meetingMember"

    enum Role: String, Codable, Sendable {
        case organizer, member
    }

    var meetingId: String
    var userId: String
    var role: Role
    var joinedAt: Date

    static func exists(_ db: Database, meetingId: String, userId: String) throws -> Bool {
        // A cached statement: chat asks this for every post (``MeetingRecord/role(of:in:)``).
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM meetingMember WHERE meetingId = ? AND userId = ?)"),
                          arguments: [meetingId, userId]) ?? false
    }
}

/// A member of a meeting as the members list shows them: what a client needs to draw them.
public struct MeetingMember: Codable, Sendable, Equatable {
    /// The member's user id.
    public var userId: String
    /// The member's display name.
    public var displayName: String
    /// The profile photo, if the member has set one.
    public var photoId: String?
    /// Organizer or member.
    public var role: MeetingRole
    /// When they joined (for the organizer, when the meeting was created).
    public var joinedAt: Date
}

extension MeetError {
    static let meetingFull = MeetError("meeting.full", status: 409)
    static let meetingStarted = MeetError("meeting.started", status: 409)
    static let notMember = MeetError("meeting.notMember", status: 409)
    static let organizerCannotLeave = MeetError("meeting.organizerCannotLeave", status: 409)
}

extension MeetingService {
    /// Joins a public meeting (or a private one the user is invited to) while places are
    /// left. Joining twice is harmless.
    public func join(_ id: String, by userId: String) async throws -> Meeting {
        let time = now()
        return try await database.writer.write { db in
            let (meeting, role) = try MeetingRecord.visible(id, to: userId, in: db)
            if role == .organizer || role == .member { return meeting.meeting(activityIds: try meeting.activityIds(in: db)) }
            let joined = try addMember(userId, to: meeting, at: time, in: db)
            try db.execute(sql: """
                UPDATE invitation SET status = 'accepted', answeredAt = ? WHERE meetingId = ? AND inviteeId = ? AND status = 'pending'
                """, arguments: [time.timeIntervalSince1970, id, userId])
            try DomainEvent.meeting(.meetingJoined, joined, actor: userId, recipients: try joined.memberIds(in: db)).record(in: db, at: time)
            return joined.meeting(activityIds: try joined.activityIds(in: db))
        }
    }

    /// Leaves a meeting; the organizer cannot leave (they cancel instead).
    public func leave(_ id: String, by userId: String) async throws {
        let time = now()
        try await database.writer.write { db in
            let (meeting, role) = try MeetingRecord.visible(id, to: userId, in: db)
            switch role {
            case .organizer: throw MeetError.organizerCannotLeave
            case .invitee, .outsider: throw MeetError.notMember
            case .member: break
            }
            try MeetingMemberRecord.deleteOne(db, key: ["meetingId": id, "userId": userId])
            try DomainEvent.meeting(.meetingLeft, meeting, actor: userId, recipients: [meeting.organizerId]).record(in: db, at: time)
        }
    }

    /// The organizer removes a member.
    public func removeMember(_ memberId: String, from id: String, by userId: String) async throws {
        let time = now()
        try await database.writer.write { db in
            let (meeting, role) = try MeetingRecord.visible(id, to: userId, in: db)
            guard role == .organizer else { throw MeetError.notOrganizer }
            guard memberId != userId else { throw MeetError.organizerCannotLeave }
            guard try MeetingMemberRecord.deleteOne(db, key: ["meetingId": id, "userId": memberId]) else {
                throw MeetError("member.notFound", status: 404)
            }
            try DomainEvent.meeting(
                .meetingMemberRemoved, meeting, actor: userId, user: memberId, recipients: [memberId]
            ).record(in: db, at: time)
        }
    }

    /// The members, organizer first, then in the order they joined. Members hidden from the
    /// viewer (blocked either way, banned) are left out, as everywhere else.
    public func members(of id: String, viewer viewerId: String) async throws -> [MeetingMember] {
        try await database.quickRead { db in
            _ = try MeetingRecord.visible(id, to: viewerId, in: db)
            return try Row.fetchAll(db, SQLRequest(literal: """
                SELECT member.userId, user.displayName, profile.photoId, member.role, member.joinedAt
                FROM meetingMember AS member
                JOIN user ON user.id = member.userId
                LEFT JOIN profile ON profile.userId = member.userId
                WHERE member.meetingId = \(id) AND \(UserVisibility.visible(to: viewerId))
                ORDER BY member.role = 'organizer' DESC, member.joinedAt, member.userId
                """)).map { row in
                MeetingMember(
                    userId: row["userId"], displayName: row["displayName"], photoId: row["photoId"],
                    role: row["role"] == MeetingMemberRecord.Role.organizer.rawValue ? .organizer : .member,
                    joinedAt: Date(timeIntervalSince1970: row["joinedAt"]))
            }
        }
    }

    /// Adds `userId` as a member if the meeting is open and has a place left, in one
    /// conditional statement: concurrent joins cannot overfill it.
    func addMember(_ userId: String, to meeting: MeetingRecord, at time: Date, in db: Database) throws -> MeetingRecord {
        try db.execute(sql: """
            INSERT INTO meetingMember (meetingId, userId, role, joinedAt)
            SELECT id, ?, 'member', ? FROM meeting
            WHERE id = ? AND cancelledAt IS NULL AND startsAt > ?
              AND (maxParticipants IS NULL OR memberCount < maxParticipants)
            """, arguments: [userId, time.timeIntervalSince1970, meeting.id, time.timeIntervalSince1970])
        guard db.changesCount == 1 else {
            if meeting.isCancelled { throw MeetError.meetingCancelled }
            if meeting.startsAt <= time { throw MeetError.meetingStarted }
            throw MeetError.meetingFull
        }
        return try MeetingRecord.filter(Column("id") == meeting.id).fetchOne(db) ?? meeting
    }
}
