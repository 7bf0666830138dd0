import Foundation
import GRDB

extension DomainEvent.Kind {
    /// An organizer created a meeting.
    public static let meetingCreated = Self(rawValue: "meeting.created")
    /// The organizer edited a meeting; the payload lists the changed fields.
    public static let meetingEdited = Self(rawValue: "meeting.edited")
    /// The organizer or a moderator cancelled a meeting.
    public static let meetingCancelled = Self(rawValue: "meeting.cancelled")
    /// A moderator deleted a meeting, or the account of its organizer; the recipients are the
    /// members it had. Nobody is notified: only the chat reads it, to end their subscriptions.
    public static let meetingDeleted = Self(rawValue: "meeting.deleted")
    /// A user joined a meeting.
    public static let meetingJoined = Self(rawValue: "meeting.joined")
    /// A member left a meeting.
    public static let meetingLeft = Self(rawValue: "meeting.left")
    /// The organizer removed a member from a meeting.
    public static let meetingMemberRemoved = Self(rawValue: "meeting.memberRemoved")
    /// Someone invited a user to a meeting.
    public static let invitationSent = Self(rawValue: "invitation.sent")
    /// An invitee accepted an invitation (and so joined).
    public static let invitationAccepted = Self(rawValue: "invitation.accepted")
    /// An invitee declined an invitation.
    public static let invitationDeclined = Self(rawValue: "invitation.declined")
}

/// The payload of every meeting event: enough for a notification ("Anna changed the time of
/// Hiking on Saturday") without querying again, and who should be told.
public struct MeetingEventPayload: Codable, Sendable, Equatable {
    /// The meeting the event is about.
    public var meetingId: String
    /// The meeting's title at the time of the event, for the notification text.
    public var title: String
    /// When the meeting starts (after the event, for edits).
    public var startsAt: Date
    /// Who did it.
    public var actorId: String
    /// Whom it is about, when that is not the actor (the removed member, the invitee).
    public var userId: String?
    /// The invitation, for invitation events.
    public var invitationId: String?
    /// For edits: the fields that changed.
    public var changedFields: [String]?
    /// For edits: the time and place as the edit left them (absent from edits recorded before
    /// they were kept, whose readers look at the meeting as it is).
    public var edited: EditedMeeting?
    /// The users to tell, never including the actor.
    public var recipients: [String]
}

/// A meeting's time and place as one edit left them: what the room's note of that edit says,
/// however the meeting changes before the note is written.
public struct EditedMeeting: Codable, Sendable, Equatable {
    /// When the meeting ends, if it has an end.
    public var endsAt: Date?
    /// The place's name.
    public var placeName: String?
    /// The place's street address.
    public var placeAddress: String?
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
            edited: changedFields == nil ? nil
                : EditedMeeting(endsAt: meeting.endsAt, placeName: meeting.placeName, placeAddress: meeting.placeAddress),
            recipients: recipients.filter { $0 != actor }))
    }
}
