import Foundation

/// What a client sends to create a meeting. Every field is optional here so that a missing
/// one is reported with the others, field by field, instead of as a decoding failure.
public struct MeetingDraft: Decodable, Sendable {
    /// Required; trimmed, one line, at most 120 characters.
    public var title: String?
    /// Optional free text, several lines allowed, at most 4000 characters.
    public var description: String?
    /// `public` or `private` (see ``Meeting/Visibility``); defaults to `public`.
    public var visibility: String?
    /// RFC 3339; parsed by the rules so that a bad value is a field problem.
    public var startsAt: String?
    /// RFC 3339; when given, must be after `startsAt`.
    public var endsAt: String?
    /// Required unless the meeting is online.
    public var place: PlaceInput?
    /// Absent means free.
    public var price: Price?
    /// Capacity, 1–10 000; absent means no limit.
    public var maxParticipants: Int?
    /// The activities the meeting is about; at most 10.
    public var activityIds: [String]?
    /// An uploaded photo's id, shown as the meeting's picture.
    public var photoId: String?
    /// Users to invite at once; at most 100, never the organizer.
    public var inviteeIds: [String]?
    /// Online meetings need no place; defaults to `false`.
    public var online: Bool?
    /// Whether members, not only the organizer, may invite others; defaults to `false`.
    public var membersMayInvite: Bool?

    /// Makes a draft in code, as a client's JSON would give it (tests build drafts this way).
    public init(
        title: String? = nil, description: String? = nil, visibility: String? = "public",
        startsAt: String? = nil, endsAt: String? = nil, place: PlaceInput? = nil, price: Price? = nil,
        maxParticipants: Int? = nil, activityIds: [String]? = nil, photoId: String? = nil,
        inviteeIds: [String]? = nil, online: Bool? = nil, membersMayInvite: Bool? = nil
    ) {
        self.title = title
        self.description = description
        self.visibility = visibility
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.place = place
        self.price = price
        self.maxParticipants = maxParticipants
        self.activityIds = activityIds
        self.photoId = photoId
        self.inviteeIds = inviteeIds
        self.online = online
        self.membersMayInvite = membersMayInvite
    }
}

/// A place as a client gives it: `{lat, lon}` picked on a map, or `{query}` to look up.
public struct PlaceInput: Decodable, Sendable, Equatable {
    /// Latitude in degrees, −90…90; given together with `lon`.
    public var lat: Double?
    /// Longitude in degrees, −180…180; given together with `lat`.
    public var lon: Double?
    /// Words to look up (an address or a town) when no point is given.
    public var query: String?

    /// Makes a place input from a point or from words to look up.
    public init(lat: Double? = nil, lon: Double? = nil, query: String? = nil) {
        self.lat = lat
        self.lon = lon
        self.query = query
    }
}

/// A partial edit (`PATCH`): absent fields stay as they are; `null` clears the fields that
/// may be empty (end, price, capacity, photo).
public struct MeetingChanges: Decodable, Sendable {
    /// A nullable field of a patch: left alone, or set to a value or to nothing.
    public enum Update<Value: Sendable>: Sendable {
        case unchanged
        case set(Value?)
    }

    /// A new title; same rules as ``MeetingDraft/title``.
    public var title: String?
    /// A new description; same rules as ``MeetingDraft/description``.
    public var description: String?
    /// `public` or `private`.
    public var visibility: String?
    /// A new start, RFC 3339; must still be in the future.
    public var startsAt: String?
    /// A new end (RFC 3339), or `null` for none.
    public var endsAt: Update<String> = .unchanged
    /// A new place; geocoded like a draft's.
    public var place: PlaceInput?
    /// A new price, or `null` for free.
    public var price: Update<Price> = .unchanged
    /// A new capacity, or `null` for no limit; never below the current member count.
    public var maxParticipants: Update<Int> = .unchanged
    /// Replaces the whole list of activities.
    public var activityIds: [String]?
    /// A new photo's id, or `null` to remove the picture.
    public var photoId: Update<String> = .unchanged
    /// Switches the meeting online or back.
    public var online: Bool?
    /// Whether members, not only the organizer, may invite others.
    public var membersMayInvite: Bool?

    /// An empty patch that changes nothing; set the fields to change.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case title, description, visibility, startsAt, endsAt, place, price, maxParticipants
        case activityIds, photoId, online, membersMayInvite
    }

    /// Reads a patch, telling an absent field (`unchanged`) from an explicit `null`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        visibility = try c.decodeIfPresent(String.self, forKey: .visibility)
        startsAt = try c.decodeIfPresent(String.self, forKey: .startsAt)
        endsAt = try c.update(.endsAt)
        place = try c.decodeIfPresent(PlaceInput.self, forKey: .place)
        price = try c.update(.price)
        maxParticipants = try c.update(.maxParticipants)
        activityIds = try c.decodeIfPresent([String].self, forKey: .activityIds)
        photoId = try c.update(.photoId)
        online = try c.decodeIfPresent(Bool.self, forKey: .online)
        membersMayInvite = try c.decodeIfPresent(Bool.self, forKey: .membersMayInvite)
    }
}

extension KeyedDecodingContainer {
    fileprivate func update<Value: Decodable & Sendable>(_ key: Key) throws -> MeetingChanges.Update<Value> {
        guard contains(key) else { return .unchanged }
        return .set(try decodeIfPresent(Value.self, forKey: key))
    }
}
