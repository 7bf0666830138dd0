import Foundation
import GRDB

/// An invitation to a meeting, as its invitee sees it.
public struct Invitation: Codable, Sendable, Equatable {
    /// Whether the invitee has answered, and how.
    public enum Status: String, Codable, Sendable, DatabaseValueConvertible {
        case pending, accepted, declined
    }

    /// Opaque id, used to accept or decline it.
    public var id: String
    /// The meeting invited to.
    public var meetingId: String
    /// The user invited.
    public var inviteeId: String
    /// Who invited them: the organizer, or a member when the meeting lets members invite.
    public var inviterId: String
    /// Pending until the invitee accepts or declines.
    public var status: Status
    /// When it was sent.
    public var createdAt: Date
    /// When the invitee answered; nil while pending.
    public var answeredAt: Date?
    /// The meeting, so that the invitations list reads without more requests.
    public var meeting: Meeting?
}

/// A row of `invitation`.
struct InvitationRecord: Codable, FetchableRecord, PersistableRecord, EpochTimes, Sendable {
    static let databaseTableName = "invitation"

    var id: String
    var meetingId: String
    var inviteeId: String
    var inviterId: String
    var status: Invitation.Status
    var createdAt: Date
    var answeredAt: Date?

    func invitation(meeting: Meeting?) -> Invitation {
        Invitation(
            id: id, meetingId: meetingId, inviteeId: inviteeId, inviterId: inviterId, status: status,
            createdAt: createdAt, answeredAt: answeredAt, meeting: meeting)
    }
}

extension MeetError {
    static let invitationNotFound = MeetError("invitation.notFound", status: 404)
    static let invitationAnswered = MeetError("invitation.answered", status: 409)
    static let mayNotInvite = MeetError("meeting.mayNotInvite", status: 403)
}

extension MeetingService {
    /// Invites users to a meeting: the organizer may, members may when the organizer allows.
    /// Users already invited or already members are left as they are.
    public func invite(_ userIds: [String], to id: String, by userId: String) async throws -> [Invitation] {
        let time = now()
        let wanted = Array(Set(userIds)).sorted()
        guard !wanted.isEmpty, wanted.count <= MeetingForm.maxInvitees else {
            let code = wanted.isEmpty ? "field.required" : "field.tooMany"
            throw MeetError.invalidField("userIds", code)
        }
        return try await database.writer.write { db in
            let (meeting, role) = try MeetingRecord.visible(id, to: userId, in: db)
            guard role == .organizer || (role == .member && meeting.membersMayInvite) else { throw MeetError.mayNotInvite }
            guard !meeting.isCancelled else { throw MeetError.meetingCancelled }
            try checkUsersExist(wanted, field: "userIds", visibleTo: userId, in: db)
            // A member's invitation carries the organizer's meeting: it may not reach someone
            // the organizer and they have blocked, and is refused as if they did not exist.
            if role != .organizer {
                try checkUsersExist(wanted, field: "userIds", visibleTo: meeting.organizerId, in: db)
            }
            let members = Set(try meeting.memberIds(in: db))
            var invitations: [Invitation] = []
            for invitee in wanted where !members.contains(invitee) {
                let record = try invite(invitee, to: meeting, by: userId, at: time, in: db)
                invitations.append(record.invitation(meeting: nil))
            }
            return invitations
        }
    }

    /// My pending invitations, soonest meeting first.
    public func invitations(for userId: String) async throws -> [Invitation] {
        try await database.quickRead { db in
            let rows = try InvitationRecord.fetchAll(db, sql: """
                SELECT invitation.* FROM invitation JOIN meeting ON meeting.id = invitation.meetingId
                WHERE invitation.inviteeId = ? AND invitation.status = 'pending'
                ORDER BY meeting.startsAt, invitation.id
                """, arguments: [userId])
            return try rows.map { row in
                let meeting = try MeetingRecord.filter(Column("id") == row.meetingId).fetchOne(db)
                return row.invitation(meeting: try meeting.map { $0.meeting(activityIds: try $0.activityIds(in: db)) })
            }
        }
    }

    /// Accepts (becoming a member, if a place is left) or declines an invitation of mine.
    public func answerInvitation(_ invitationId: String, accept: Bool, by userId: String) async throws -> Invitation {
        let time = now()
        return try await database.writer.write { db in
            guard var invitation = try InvitationRecord.fetchOne(db, key: invitationId), invitation.inviteeId == userId else {
                throw MeetError.invitationNotFound
            }
            guard invitation.status == .pending else { throw MeetError.invitationAnswered }
            guard var meeting = try MeetingRecord.filter(Column("id") == invitation.meetingId).fetchOne(db) else {
                throw MeetError.invitationNotFound
            }
            if accept {
                meeting = try addMember(userId, to: meeting, at: time, in: db)
            }
            invitation.status = accept ? .accepted : .declined
            invitation.answeredAt = time
            try invitation.update(db)
            let recipients = accept ? try meeting.memberIds(in: db) : [invitation.inviterId]
            try DomainEvent.meeting(
                accept ? .invitationAccepted : .invitationDeclined, meeting, actor: userId,
                invitationId: invitation.id, recipients: recipients
            ).record(in: db, at: time)
            return invitation.invitation(meeting: meeting.meeting(activityIds: try meeting.activityIds(in: db)))
        }
    }

    /// Records an invitation and tells the invitee. A pending one is left as it is; one that
    /// was answered (declined, or accepted by someone who has since left) is asked again.
    @discardableResult
    func invite(_ inviteeId: String, to meeting: MeetingRecord, by inviterId: String, at time: Date, in db: Database) throws -> InvitationRecord {
        let existing = try InvitationRecord.filter(Column("meetingId") == meeting.id && Column("inviteeId") == inviteeId).fetchOne(db)
        if let existing, existing.status == .pending { return existing }
        let invitation = InvitationRecord(
            id: existing?.id ?? RandomToken.id(), meetingId: meeting.id, inviteeId: inviteeId, inviterId: inviterId,
            status: .pending, createdAt: time)
        try invitation.save(db)
        try DomainEvent.meeting(
            .invitationSent, meeting, actor: inviterId, user: inviteeId, invitationId: invitation.id, recipients: [inviteeId]
        ).record(in: db, at: time)
        return invitation
    }
}
