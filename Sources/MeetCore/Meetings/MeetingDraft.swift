import Foundation

/// What a client sends to create a meeting. Every field is optional here so that a missing
/// one is reported with the others, field by field, instead of as a decoding failure.
public struct MeetingDraft: Decodable, Sendable {
    public var title: String?
    public var description: String?
    public var visibility: String?
    /// RFC 3339; parsed by the rules so that a bad value is a field problem.
    public var startsAt: String?
    public var endsAt: String?
    public var place: PlaceInput?
    public var price: Price?
    public var maxParticipants: Int?
    public var activityIds: [String]?
    public var photoId: String?
    public var inviteeIds: [String]?
    public var online: Bool?
    public var membersMayInvite: Bool?

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
    public var lat: Double?
    public var lon: Double?
    public var query: String?

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

    public var title: String?
    public var description: String?
    public var visibility: String?
    public var startsAt: String?
    public var endsAt: Update<String> = .unchanged
    public var place: PlaceInput?
    public var price: Update<Price> = .unchanged
    public var maxParticipants: Update<Int> = .unchanged
    public var activityIds: [String]?
    public var photoId: Update<String> = .unchanged
    public var online: Bool?
    public var membersMayInvite: Bool?

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case title, description, visibility, startsAt, endsAt, place, price, maxParticipants
        case activityIds, photoId, online, membersMayInvite
    }

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
