import Foundation
import GRDB

/// Meetings: create, read, edit, cancel; membership, invitations, the feed and calendar
/// files live in extensions beside this file.
public struct MeetingService: Sendable {
    let database: AppDatabase
    let resolvePlace: PlaceResolver
    let now: @Sendable () -> Date
    let snapshots: FeedSnapshots
    let index: FeedIndex
    let viewers: FeedViewers

    /// - Parameters:
    ///   - resolvePlace: turns the place a client sends into a geocoded place.
    ///   - now: the clock; tests pass a fixed one.
    public init(database: AppDatabase, resolvePlace: @escaping PlaceResolver, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.resolvePlace = resolvePlace
        self.now = now
        self.snapshots = FeedSnapshots()
        self.index = FeedIndex(database: database, now: now)
        self.viewers = FeedViewers(database: database)
    }

    /// Keeps the feed index and its viewers in step with writes of other processes (the admin
    /// CLI) as `changes` delivers them; this process's own writes they follow by themselves.
    public func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.meeting]) { [index] changes in
            await index.follow(Set(changes.lazy.filter { !$0.isLocal }.compactMap { Int64($0.subject) }))
        }
        viewers.follow(changes)
    }

    /// Creates a meeting organized by `organizerId`, who becomes its first member; invitees
    /// get invitations.
    public func create(_ draft: MeetingDraft, by organizerId: String) async throws -> Meeting {
        let time = now()
        var form = MeetingForm(now: time)
        var meeting = MeetingRecord(
            id: RandomToken.id(), organizerId: organizerId, title: "", description: "", visibility: .public,
            startsAt: time, online: false, timeZone: "UTC", memberCount: 0, membersMayInvite: false,
            createdAt: time, updatedAt: time, revision: 0)
        form.apply(draft, to: &meeting)
        let query = draft.place.flatMap { form.placeQuery($0) }
        meeting.place = try await place(for: query, form: &form)
        form.checkConsistency(of: meeting)
        try form.check()

        return try await database.writer.write { [meeting] db in
            var meeting = meeting
            let activityIds = Array(Set(draft.activityIds ?? [])).sorted()
            let inviteeIds = Array(Set(draft.inviteeIds ?? [])).sorted()
            try checkUsersExist(inviteeIds, field: "inviteeIds", visibleTo: organizerId, in: db)
            try checkActivitiesUsable(activityIds, in: db)
            try MediaAccess.checkPhoto(meeting.photoId, replacing: nil, by: organizerId, in: db)
            try meeting.insert(db)
            try MeetingMemberRecord(meetingId: meeting.id, userId: organizerId, role: .organizer, joinedAt: time).insert(db)
            try setActivities(activityIds, of: meeting.id, in: db)
            for invitee in inviteeIds {
                try invite(invitee, to: meeting, by: organizerId, at: time, in: db)
            }
            try DomainEvent.meeting(.meetingCreated, meeting, actor: organizerId, recipients: []).record(in: db, at: time)
            meeting.memberCount = 1
            return meeting.meeting(activityIds: activityIds)
        }
    }

    /// The meeting as `viewerId` may see it; `meeting.notFound` for a private meeting they
    /// have no part in.
    public func meeting(_ id: String, viewer viewerId: String) async throws -> Meeting {
        try await database.quickRead { db in
            let (meeting, _) = try MeetingRecord.visible(id, to: viewerId, in: db)
            return meeting.meeting(activityIds: try meeting.activityIds(in: db))
        }
    }

    /// Applies an organizer's edit; members are told which fields changed.
    public func update(_ id: String, with changes: MeetingChanges, by userId: String) async throws -> Meeting {
        let time = now()
        var form = MeetingForm(now: time)
        let query = changes.place.flatMap { form.placeQuery($0) }
        let newPlace = query == nil ? nil : try await place(for: query, form: &form)
        return try await database.writer.write { [form] db in
            let (old, role) = try MeetingRecord.visible(id, to: userId, in: db)
            guard role == .organizer else { throw MeetError.notOrganizer }
            guard !old.isCancelled else { throw MeetError.meetingCancelled }
            var meeting = old
            var form = form
            form.apply(changes, to: &meeting)
            if let newPlace { meeting.place = newPlace }
            form.checkConsistency(of: meeting)
            try form.check()
            try MediaAccess.checkPhoto(meeting.photoId, replacing: old.photoId, by: userId, in: db)

            var changed = meeting.changedFields(from: old)
            if let activityIds = changes.activityIds {
                let current = try old.activityIds(in: db)
                if Set(activityIds) != Set(current) {
                    try checkActivitiesUsable(activityIds, keeping: current, in: db)
                    try db.execute(sql: "DELETE FROM meetingActivity WHERE meetingId = ?", arguments: [id])
                    try setActivities(Array(Set(activityIds)), of: id, in: db)
                    changed.append("activityIds")
                }
            }
            if !changed.isEmpty {
                meeting.revision += 1
                meeting.updatedAt = time
                try meeting.update(db)
                try DomainEvent.meeting(
                    .meetingEdited, meeting, actor: userId, changedFields: changed.sorted(),
                    recipients: try meeting.memberIds(in: db)
                ).record(in: db, at: time)
            }
            return meeting.meeting(activityIds: try meeting.activityIds(in: db))
        }
    }

    /// Cancels the meeting (organizer only). It stays readable, marked cancelled, and the
    /// members and pending invitees are told.
    public func cancel(_ id: String, by userId: String) async throws -> Meeting {
        let time = now()
        return try await database.writer.write { db in
            var (meeting, role) = try MeetingRecord.visible(id, to: userId, in: db)
            guard role == .organizer else { throw MeetError.notOrganizer }
            try Self.markCancelled(&meeting, by: userId, at: time, in: db)
            return meeting.meeting(activityIds: try meeting.activityIds(in: db))
        }
    }

    /// Cancels `meeting` in `db`'s transaction and tells its members and pending invitees
    /// (all but `actor`): the organizer's cancel and a moderator's alike.
    static func markCancelled(_ meeting: inout MeetingRecord, by actor: String, at time: Date, in db: Database) throws {
        guard !meeting.isCancelled else { throw MeetError.meetingCancelled }
        meeting.cancelledAt = time
        meeting.updatedAt = time
        meeting.revision += 1
        try meeting.update(db)
        let invitees = try String.fetchAll(
            db, sql: "SELECT inviteeId FROM invitation WHERE meetingId = ? AND status = 'pending'", arguments: [meeting.id])
        try DomainEvent.meeting(
            .meetingCancelled, meeting, actor: actor, recipients: try meeting.memberIds(in: db) + invitees
        ).record(in: db, at: time)
    }

    /// Geocodes the place; a query that finds nothing is a problem of the `place` field.
    private func place(for query: PlaceQuery?, form: inout MeetingForm) async throws -> Place? {
        guard let query else { return nil }
        if let place = try await resolvePlace(query) { return place }
        guard case .point(let lat, let lon) = query else {
            form.problem("place", "place.notFound")
            return nil
        }
        // A point in the sea or the wilderness is still a place to meet.
        return Place(name: "", address: "", city: "", country: "", lat: lat, lon: lon, timeZone: "UTC")
    }

    private func setActivities(_ activityIds: [String], of meetingId: String, in db: Database) throws {
        for activityId in activityIds {
            try db.execute(sql: "INSERT INTO meetingActivity (meetingId, activityId) VALUES (?, ?)", arguments: [meetingId, activityId])
        }
    }
}

extension MeetingRecord {
    /// The client-visible fields whose value differs from `old`.
    func changedFields(from old: MeetingRecord) -> [String] {
        var fields: [String] = []
        if title != old.title { fields.append("title") }
        if description != old.description { fields.append("description") }
        if visibility != old.visibility { fields.append("visibility") }
        if startsAt != old.startsAt { fields.append("startsAt") }
        if endsAt != old.endsAt { fields.append("endsAt") }
        if place != old.place { fields.append("place") }
        if price != old.price { fields.append("price") }
        if maxParticipants != old.maxParticipants { fields.append("maxParticipants") }
        if photoId != old.photoId { fields.append("photoId") }
        if online != old.online { fields.append("online") }
        if membersMayInvite != old.membersMayInvite { fields.append("membersMayInvite") }
        return fields
    }
}

/// Refuses with a field problem when any of `userIds` is not a user `actor` may see: one
/// who blocked them, or whom they blocked, is answered like one who does not exist.
func checkUsersExist(_ userIds: [String], field: String, visibleTo actor: String, in db: Database) throws {
    guard !userIds.isEmpty else { return }
    let known = try String.fetchSet(db, SQLRequest<String>(literal: """
        SELECT id FROM user WHERE id IN \(userIds) AND \(Blocks.neitherBlocked(actor, "user.id"))
        """))
    if known.count < Set(userIds).count {
        throw MeetError.invalidField(field, "user.unknown")
    }
}

/// Refuses with a field problem when any of `activityIds` is not in the catalog, or was hidden
/// by moderators and is not among `current` (the meeting's activities before the edit).
func checkActivitiesUsable(_ activityIds: [String], keeping current: [String] = [], in db: Database) throws {
    guard !activityIds.isEmpty else { return }
    if try !ActivityService.unusableIds(activityIds, keeping: current, in: db).isEmpty {
        throw MeetError.invalidField("activityIds", "activity.unknown")
    }
}
