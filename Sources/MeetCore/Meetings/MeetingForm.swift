import Foundation

/// Applies what a client sent (a draft or a patch) to a meeting row and collects, field by
/// field, everything that is wrong with it, so that one answer lists every problem.
struct MeetingForm {
    static let titleRule = TextRule(.oneLine, maximumScalars: 120)
    static let descriptionRule = TextRule(.multiLine, maximumScalars: 4000)
    static let maxActivities = 10
    static let maxInvitees = 100
    static let maxParticipants = 10_000
    /// How far ahead a meeting may be planned.
    static let horizon: TimeInterval = 2 * 366 * 86_400

    let now: Date
    private(set) var problems: [MeetError.FieldProblem] = []

    init(now: Date) {
        self.now = now
    }

    mutating func problem(_ field: String, _ code: String) {
        problems.append(.init(field: field, code: code))
    }

    /// Notes what `rule` finds wrong with `text`, if anything.
    mutating func check(_ text: String, _ field: String, _ rule: TextRule) {
        if let problem = rule.fieldProblem(with: text, field: field) { problems.append(problem) }
    }

    /// Throws `request.invalidFields` (422) listing every problem found, if any.
    func check() throws {
        guard problems.isEmpty else {
            throw MeetError.invalidFields(problems)
        }
    }

    /// Fills a new meeting from `draft`; required fields that are missing are problems.
    mutating func apply(_ draft: MeetingDraft, to meeting: inout MeetingRecord) {
        setTitle(draft.title, on: &meeting)
        if let description = draft.description { setDescription(description, on: &meeting) }
        setVisibility(draft.visibility, on: &meeting)
        setStart(draft.startsAt, on: &meeting)
        meeting.endsAt = draft.endsAt.flatMap { time($0, field: "endsAt") }
        setPrice(draft.price, on: &meeting)
        setCapacity(draft.maxParticipants, on: &meeting)
        setPhoto(draft.photoId, on: &meeting)
        meeting.online = draft.online ?? false
        meeting.membersMayInvite = draft.membersMayInvite ?? false
        checkLists(activityIds: draft.activityIds ?? [], inviteeIds: draft.inviteeIds ?? [], organizerId: meeting.organizerId)
    }

    /// Applies the fields `changes` carries to an existing meeting.
    mutating func apply(_ changes: MeetingChanges, to meeting: inout MeetingRecord) {
        if let title = changes.title { setTitle(title, on: &meeting) }
        if let description = changes.description { setDescription(description, on: &meeting) }
        if let visibility = changes.visibility { setVisibility(visibility, on: &meeting) }
        if let startsAt = changes.startsAt { setStart(startsAt, on: &meeting) }
        if case .set(let endsAt) = changes.endsAt { meeting.endsAt = endsAt.flatMap { time($0, field: "endsAt") } }
        if case .set(let price) = changes.price { setPrice(price, on: &meeting) }
        if case .set(let capacity) = changes.maxParticipants { setCapacity(capacity, on: &meeting) }
        if case .set(let photoId) = changes.photoId { setPhoto(photoId, on: &meeting) }
        if let online = changes.online { meeting.online = online }
        if let membersMayInvite = changes.membersMayInvite { meeting.membersMayInvite = membersMayInvite }
        if let activityIds = changes.activityIds { checkLists(activityIds: activityIds, inviteeIds: [], organizerId: meeting.organizerId) }
    }

    /// A photo is referred to by its media id, never by anything else (a path, a URL).
    private mutating func setPhoto(_ photoId: String?, on meeting: inout MeetingRecord) {
        if let photoId, !RandomToken.isWellFormedId(photoId) { problem("photoId", "field.invalid") }
        meeting.photoId = photoId
    }

    /// Rules between fields, checked once all of them are applied.
    mutating func checkConsistency(of meeting: MeetingRecord) {
        if let endsAt = meeting.endsAt, endsAt <= meeting.startsAt { problem("endsAt", "meeting.endBeforeStart") }
        if let capacity = meeting.maxParticipants, capacity < meeting.memberCount { problem("maxParticipants", "meeting.capacityBelowMembers") }
        if meeting.place == nil && !meeting.online && !problems.contains(where: { $0.field == "place" }) {
            problem("place", "field.required")
        }
    }

    /// What to look up for `input`, or `nil` (with a problem) when it is neither a point nor words.
    mutating func placeQuery(_ input: PlaceInput) -> PlaceQuery? {
        if let lat = input.lat, let lon = input.lon {
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                problem("place", "place.invalidCoordinates")
                return nil
            }
            return .point(lat: lat, lon: lon)
        }
        if let query = input.query?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty, input.lat == nil, input.lon == nil {
            return .text(query)
        }
        problem("place", "field.invalid")
        return nil
    }

    private mutating func setTitle(_ title: String?, on meeting: inout MeetingRecord) {
        let trimmed = title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if trimmed.isEmpty { problem("title", "field.required") }
        check(trimmed, "title", Self.titleRule)
        meeting.title = trimmed
    }

    private mutating func setDescription(_ description: String, on meeting: inout MeetingRecord) {
        check(description, "description", Self.descriptionRule)
        meeting.description = description
    }

    private mutating func setVisibility(_ visibility: String?, on meeting: inout MeetingRecord) {
        guard let visibility else { return problem("visibility", "field.required") }
        guard let value = Meeting.Visibility(rawValue: visibility) else { return problem("visibility", "field.invalid") }
        meeting.visibility = value
    }

    private mutating func setStart(_ startsAt: String?, on meeting: inout MeetingRecord) {
        guard let startsAt else { return problem("startsAt", "field.required") }
        guard let start = time(startsAt, field: "startsAt") else { return }
        if start <= now { problem("startsAt", "meeting.startInPast") }
        if start > now + Self.horizon { problem("startsAt", "meeting.startTooFar") }
        meeting.startsAt = start
    }

    private mutating func setPrice(_ price: Price?, on meeting: inout MeetingRecord) {
        guard let price else { return meeting.price = nil }
        if price.amount < 0 { problem("price.amount", "price.negative") }
        guard let currency = Currency(code: price.currency) else { return problem("price.currency", "price.unknownCurrency") }
        if price.amount >= 0 && currency.minor(price.amount) == nil { problem("price.amount", "price.tooPrecise") }
        meeting.price = price
    }

    private mutating func setCapacity(_ capacity: Int?, on meeting: inout MeetingRecord) {
        if let capacity, !(1...Self.maxParticipants).contains(capacity) { problem("maxParticipants", "field.outOfRange") }
        meeting.maxParticipants = capacity
    }

    private mutating func checkLists(activityIds: [String], inviteeIds: [String], organizerId: String) {
        if activityIds.count > Self.maxActivities { problem("activityIds", "field.tooMany") }
        if inviteeIds.count > Self.maxInvitees { problem("inviteeIds", "field.tooMany") }
        if inviteeIds.contains(organizerId) { problem("inviteeIds", "meeting.organizerInvited") }
    }

    private mutating func time(_ text: String, field: String) -> Date? {
        guard let date = RFC3339.date(from: text) else {
            problem(field, "field.invalidTime")
            return nil
        }
        return date
    }
}
