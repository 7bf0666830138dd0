import Foundation
import GRDB

/// Someone no longer belongs to a meeting's room (left, removed, or separated by a block):
/// the server ends their live subscriptions to it.
public struct ChatDeparture: Sendable, Equatable {
    /// The meeting whose room they left.
    public var meetingId: String
    /// Who no longer belongs to it.
    public var userId: String

    /// A departure heard of elsewhere (another node, through the relay).
    public init(meetingId: String, userId: String) {
        self.meetingId = meetingId
        self.userId = userId
    }
}

/// The chat's reading of the domain-event log (consumer `chat`, docs/internals.md "Domain
/// events"): what members want to see in the room becomes a system message, and whoever stops
/// belonging to a room becomes a departure. Meeting code records its events and knows nothing
/// of this.
///
/// System messages carry `{kind, arguments}` for the client to put in words:
/// `memberJoined`, `memberLeft`, `memberRemoved` (`userId`, `displayName`), `meetingEdited`
/// (`changed`: `time`, `place` or both, comma-separated, with the new `startsAt`, `endsAt`,
/// `placeName`, `placeAddress` as they apply) and `meetingCancelled`. Their sender is who did it.
enum ChatEvents {
    static let consumer = "chat"
    /// The most events one transaction takes.
    static let batch = 100

    /// Turns the pending events into system messages and departures, and moves the marker past
    /// them, in `db`'s transaction. `eventsPending` says whether the log may hold more.
    static func consume(in db: Database) throws -> ChatWritten {
        let events = try DomainEvents.pending(for: consumer, limit: batch, in: db)
        guard let last = events.last else { return ChatWritten() }
        var written = ChatWritten(eventsPending: events.count == batch)
        for event in events {
            try apply(event, to: &written, in: db)
        }
        try DomainEvents.markConsumed(consumer, through: last.id, in: db)
        return written
    }

    private static func apply(_ event: StoredEvent, to written: inout ChatWritten, in db: Database) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        if event.kind == .chatMessageRedacted {
            // Stored by another process (the admin CLI): only the broadcast is left to do.
            guard let redaction = try? decoder.decode(ChatRedactionPayload.self, from: event.payload),
                  let deleted = try ChatModeration.redactionEvent(redaction, in: db) else { return }
            written.appended.append(deleted)
            return
        }
        // An event this version cannot read is skipped, never retried forever.
        guard let payload = try? decoder.decode(MeetingEventPayload.self, from: event.payload) else { return }
        if event.kind == .meetingDeleted {
            // The meeting and its room are gone: only its members' subscriptions are left to end
            // (the moderator's too, should they have been one; a terminal's login is no user).
            let moderator = try String.fetchOne(db, sql: "SELECT id FROM user WHERE id = ?", arguments: [payload.actorId])
            written.departures += (payload.recipients + (moderator.map { [$0] } ?? [])).map {
                ChatDeparture(meetingId: payload.meetingId, userId: $0)
            }
            return
        }
        guard let meeting = try MeetingRecord.filter(Column("id") == payload.meetingId).fetchOne(db) else { return }
        let note: ChatSystemNote?
        switch event.kind {
        case .meetingJoined, .invitationAccepted:
            note = try member("memberJoined", payload.actorId, in: db)
        case .meetingLeft:
            note = try member("memberLeft", payload.actorId, in: db)
            written.departures.append(ChatDeparture(meetingId: meeting.id, userId: payload.actorId))
        case .meetingMemberRemoved:
            guard let userId = payload.userId else { return }
            // Blocking the organizer is leaving; being removed (or blocked) by them is removal.
            note = try member(userId == payload.actorId ? "memberLeft" : "memberRemoved", userId, in: db)
            written.departures.append(ChatDeparture(meetingId: meeting.id, userId: userId))
        case .meetingEdited:
            note = edited(payload, meeting, fields: payload.changedFields ?? [])
        case .meetingCancelled:
            note = ChatSystemNote(kind: "meetingCancelled", arguments: [:])
        default:
            note = nil
        }
        guard let note else { return }
        // An actor whose account was deleted before the event was read (by a moderator while
        // the server was down) is no sender: the foreign key would refuse the note, and the
        // event, never consumed, would hold back every one after it.
        let sender = try String.fetchOne(db, sql: "SELECT id FROM user WHERE id = ?", arguments: [payload.actorId])
        written.appended.append(try ChatRoomLog.append(
            .init(type: .system, senderId: sender, system: note), toMeeting: meeting.id, at: event.createdAt, in: db))
    }

    private static func member(_ kind: String, _ userId: String, in db: Database) throws -> ChatSystemNote {
        let name = try String.fetchOne(db, sql: "SELECT displayName FROM user WHERE id = ?", arguments: [userId])
        return ChatSystemNote(kind: kind, arguments: ["userId": userId, "displayName": name ?? ""])
    }

    /// A note for an edit that changed the time or the place, as the edit left them (two edits
    /// read in one pass each tell their own); nil for other edits. An edit recorded before its
    /// event kept them is told from the meeting as it is.
    private static func edited(_ payload: MeetingEventPayload, _ meeting: MeetingRecord, fields: [String]) -> ChatSystemNote? {
        let time = fields.contains("startsAt") || fields.contains("endsAt")
        let place = fields.contains("place")
        guard time || place else { return nil }
        let edited = payload.edited
            ?? EditedMeeting(endsAt: meeting.endsAt, placeName: meeting.placeName, placeAddress: meeting.placeAddress)
        var arguments = ["changed": [time ? "time" : nil, place ? "place" : nil].compactMap { $0 }.joined(separator: ",")]
        if time {
            arguments["startsAt"] = (payload.edited == nil ? meeting.startsAt : payload.startsAt).formatted(.iso8601)
            if let endsAt = edited.endsAt { arguments["endsAt"] = endsAt.formatted(.iso8601) }
        }
        if place {
            arguments["placeName"] = edited.placeName ?? ""
            arguments["placeAddress"] = edited.placeAddress ?? ""
        }
        return ChatSystemNote(kind: "meetingEdited", arguments: arguments)
    }
}

extension ChangeTopic {
    /// A domain event was recorded (by trigger, from any process); the subject is its id.
    public static let domainEvent = ChangeTopic(rawValue: "domainEvent")
}
