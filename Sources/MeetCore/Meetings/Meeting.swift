import Foundation

/// A meeting as its viewers see it.
public struct Meeting: Codable, Sendable, Equatable {
    /// Who can find and see a meeting.
    public enum Visibility: String, Codable, Sendable {
        /// Anyone may find and join it.
        case `public`
        /// Only the organizer, members and invitees know it exists.
        case `private`
    }

    /// Whether a meeting still takes place.
    public enum Status: String, Codable, Sendable {
        case scheduled, cancelled
    }

    /// Opaque id, used in links and routes.
    public var id: String
    /// The user who created the meeting and may edit or cancel it.
    public var organizerId: String
    /// Shown in the feed, on the link page and in calendar files; one line, at most 120 characters.
    public var title: String
    /// Free text from the organizer; may be empty.
    public var description: String
    /// Who can find and see the meeting.
    public var visibility: Visibility
    /// `scheduled`, or `cancelled` once the organizer (or a moderator) called it off.
    public var status: Status
    /// When the meeting begins (an instant; calendar files show it in the place's time zone).
    public var startsAt: Date
    /// When the meeting ends; absent when the organizer did not say.
    public var endsAt: Date?
    /// Online or global meetings are not tied to a neighbourhood: no radius applies in the feed.
    public var online: Bool
    /// Absent only for online meetings created without one.
    public var place: Place?
    /// Absent means free.
    public var price: Price?
    /// Capacity; absent means no limit.
    public var maxParticipants: Int?
    /// How many members have joined, the organizer included; never above `maxParticipants`.
    public var memberCount: Int
    /// Whether members, not only the organizer, may invite others.
    public var membersMayInvite: Bool
    /// Ids of the activities the meeting is about.
    public var activityIds: [String]
    /// Id of the meeting's picture in the media store, if any.
    public var photoId: String?
    /// When the organizer created the meeting.
    public var createdAt: Date
    /// When the meeting was last edited or cancelled.
    public var updatedAt: Date
    /// Grows with every edit and with the cancellation (the calendar `SEQUENCE`).
    public var revision: Int
    /// Distance from the point the feed was asked about, when it was.
    public var distanceKm: Double?
}

/// Where a meeting happens: the point the organizer picked and what geocoding made of it.
public struct Place: Codable, Sendable, Equatable {
    /// What to call the place: the address, or the town when there is none.
    public var name: String
    /// Street address as the geocoder gave it; may be empty.
    public var address: String
    /// Town or city (for a district, the city it belongs to).
    public var city: String
    /// Country name; may be empty for a bare point.
    public var country: String
    /// Latitude in degrees.
    public var lat: Double
    /// Longitude in degrees.
    public var lon: Double
    /// IANA time zone (`Europe/Kyiv`) in which calendar files show the meeting.
    public var timeZone: String

    /// Makes a place from its parts.
    public init(name: String, address: String, city: String, country: String, lat: Double, lon: Double, timeZone: String) {
        self.name = name
        self.address = address
        self.city = city
        self.country = country
        self.lat = lat
        self.lon = lon
        self.timeZone = timeZone
    }
}

/// What the organizer asked for as a place: a point on the map or words to look up.
public enum PlaceQuery: Sendable, Equatable {
    case point(lat: Double, lon: Double)
    case text(String)
}

/// Turns a ``PlaceQuery`` into a ``Place``; `nil` when nothing matches. The server wires it
/// to the configured geocoder.
public typealias PlaceResolver = @Sendable (PlaceQuery) async throws -> Place?

/// A price in an ISO 4217 currency.
public struct Price: Codable, Sendable, Equatable {
    /// Amount in the currency's major unit (e.g. euros, not cents); never negative.
    public var amount: Decimal
    /// ISO 4217 code, such as `EUR` or `UAH`.
    public var currency: String

    /// Makes a price; the meeting rules check the amount and the currency.
    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}
