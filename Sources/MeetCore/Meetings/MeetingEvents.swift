import Foundation
import GRDB

extension DomainEvent.Kind {
    public static let meetingCreated = Self(rawValue: "meeting.created")
    public static let meetingEdited = Self(rawValue: "meeting.edited")
    public static let meetingCancelled = Self(rawValue: "meeting.cancelled")
    public static let meetingJoined = Self(rawValue: "meeting.joined")
    public static let meetingLeft = Self(rawValue: "meeting.left")
    public static let meetingMemberRemoved = Self(rawValue: "meeting.memberRemoved")
    public static let invitationSent = Self(rawValue: "invitation.sent")
    public static let invitationAccepted = Self(rawValue: "invitation.accepted")
    public static let invitationDeclined = Self(rawValue: "invitation.declined")
}

/// The payload of every meeting event: enough for a notification ("Anna changed the time of
/// Hiking on Saturday") without querying again, and who should be told.
public struct MeetingEventPayload: Codable, Sendable, Equatable {
    public var meetingId: String
    public var title: String
    public var startsAt: Date
    /// Who did it.
    public var actorId: String
    /// Whom it is about, when that is not the actor (the removed member, the invitee).
    public var userId: String?
    public var invitationId: String?
    /// For edits: the fields that changed.
    public var changedFields: [String]?
    /// The users to tell, never including the actor.
    public var recipients: [String]
}

extension DomainEvent {
    /// An event about `meeting`, addressed to `recipients` minus the actor.
    static func meeting(
        _ kind: Kind, _ meeting: MeetingRecord, actor: String, user: String? = nil, invitationId: String? = nil,
        changedFields: [String]? = nil, recipients: [String]
    ) throws -> DomainEvent {
        try DomainEvent(kind, payload: MeetingEventPayload(
            meetingId: meeting.id, title: meeting.title, startsAt: meeting.startsAt, actorId: actor, userId: user,
            invitationId: invitationId, changedFields: changedFields,
            recipients: recipients.filter { $0 != actor }))
    }
}
