import Foundation

/// What the meetings feed is asked: where, what, when, in which order, and which page.
/// Codable so that a saved feed cursor keeps its first page's request (`FeedCursorStore`).
public struct FeedRequest: Sendable, Equatable, Codable {
    /// The feed's orders: soonest first, nearest first, most members first, or best match for the viewer.
    public enum Sort: String, Sendable, CaseIterable, Codable {
        case date, distance, popularity, relevance
    }

    /// Latitude of the centre, in degrees; given together with `lon`.
    public var lat: Double?
    /// Longitude of the centre, in degrees; given together with `lat`.
    public var lon: Double?
    /// Kilometres around (`lat`, `lon`); online and global meetings ignore it.
    public var radiusKm: Double?
    /// Meetings with at least one of these activities.
    public var activityIds: [String]
    /// Starting at or after; defaults to now.
    public var from: Date?
    /// Starting before.
    public var to: Date?
    /// Only meetings without a price.
    public var freeOnly: Bool
    /// Only meetings that have room left (no capacity, or fewer members than it).
    public var hasSpots: Bool
    /// The order; `distance` needs a centre.
    public var sort: Sort
    /// From the previous page's `nextCursor`; the other fields are then ignored.
    public var cursor: String?
    /// Meetings per page, 1–100.
    public var limit: Int

    /// The radius used when a centre is given without `radiusKm`.
    public static let defaultRadiusKm = 25.0
    /// The largest radius a client may ask for.
    public static let maxRadiusKm = 500.0
    /// The largest page a client may ask for.
    public static let maxLimit = 100

    /// Makes a request as the feed route reads it from the query; the feed checks it when asked.
    public init(
        lat: Double? = nil, lon: Double? = nil, radiusKm: Double? = nil, activityIds: [String] = [],
        from: Date? = nil, to: Date? = nil, freeOnly: Bool = false, hasSpots: Bool = false,
        sort: Sort = .date, cursor: String? = nil, limit: Int = 20
    ) {
        self.lat = lat
        self.lon = lon
        self.radiusKm = radiusKm
        self.activityIds = activityIds
        self.from = from
        self.to = to
        self.freeOnly = freeOnly
        self.hasSpots = hasSpots
        self.sort = sort
        self.cursor = cursor
        self.limit = limit
    }

    /// The circle asked about, if any.
    var circle: GeoCircle? {
        guard let lat, let lon else { return nil }
        return GeoCircle(lat: lat, lon: lon, radiusKm: radiusKm ?? Self.defaultRadiusKm)
    }

    /// Refuses with `request.invalidFields` (422) naming each bad field.
    func validate() throws {
        var problems: [MeetError.FieldProblem] = []
        if (lat == nil) != (lon == nil) { problems.append(.init(field: lat == nil ? "lat" : "lon", code: "field.required")) }
        if let lat, !(-90...90).contains(lat) { problems.append(.init(field: "lat", code: "field.outOfRange")) }
        if let lon, !(-180...180).contains(lon) { problems.append(.init(field: "lon", code: "field.outOfRange")) }
        if let radiusKm {
            if !(radiusKm > 0 && radiusKm <= Self.maxRadiusKm) { problems.append(.init(field: "radiusKm", code: "field.outOfRange")) }
            if lat == nil { problems.append(.init(field: "lat", code: "field.required")) }
        }
        if sort == .distance && lat == nil { problems.append(.init(field: "lat", code: "field.required")) }
        if let from, let to, to <= from { problems.append(.init(field: "to", code: "feed.toBeforeFrom")) }
        if !(1...Self.maxLimit).contains(limit) { problems.append(.init(field: "limit", code: "field.outOfRange")) }
        if !problems.isEmpty { throw MeetError.invalidFields(problems) }
    }
}

/// One page of the feed.
public struct FeedPage: Encodable, Sendable, Equatable {
    /// One meeting of a page, at its distance from the point the feed was asked about.
    package struct Item: Sendable {
        /// Shared with the page cache and other pages.
        package let shown: PageMeeting
        package let distanceKm: Double?

        var meeting: Meeting {
            var meeting = shown.meeting
            meeting.distanceKm = distanceKm
            return meeting
        }
    }

    /// The meetings of this page, in the requested order, as `Item`s.
    package let entries: [Item]
    /// Pass it back as `cursor` for the next page; null on the last page.
    public let nextCursor: String?

    /// The meetings of this page, in the requested order.
    public var items: [Meeting] { entries.map(\.meeting) }

    init(entries: [Item], nextCursor: String?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }

    /// A page of `items` as if each were read anew.
    init(items: [Meeting], nextCursor: String?) {
        entries = items.map { Item(shown: PageMeeting(meeting: $0, isListed: true, point: nil), distanceKm: $0.distanceKm) }
        self.nextCursor = nextCursor
    }

    public static func == (left: FeedPage, right: FeedPage) -> Bool {
        left.items == right.items && left.nextCursor == right.nextCursor
    }

    private enum CodingKeys: String, CodingKey {
        case items, nextCursor
    }

    /// Writes `nextCursor` even when null, as every list envelope does (docs/conventions.md).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
