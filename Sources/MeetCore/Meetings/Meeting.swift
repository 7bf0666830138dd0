import Foundation

/// A meeting as its viewers see it.
public struct Meeting: Codable, Sendable, Equatable {
    public enum Visibility: String, Codable, Sendable {
        /// Anyone may find and join it.
        case `public`
        /// Only the organizer, members and invitees know it exists.
        case `private`
    }

    public enum Status: String, Codable, Sendable {
        case scheduled, cancelled
    }

    public var id: String
    public var organizerId: String
    public var title: String
    public var description: String
    public var visibility: Visibility
    public var status: Status
    public var startsAt: Date
    public var endsAt: Date?
    /// Online or global meetings are not tied to a neighbourhood: no radius applies in the feed.
    public var online: Bool
    /// Absent only for online meetings created without one.
    public var place: Place?
    /// Absent means free.
    public var price: Price?
    public var maxParticipants: Int?
    public var memberCount: Int
    /// Whether members, not only the organizer, may invite others.
    public var membersMayInvite: Bool
    public var activityIds: [String]
    public var photoId: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Grows with every edit and with the cancellation (the calendar `SEQUENCE`).
    public var revision: Int
    /// Distance from the point the feed was asked about, when it was.
    public var distanceKm: Double?
}

/// Where a meeting happens: the point the organizer picked and what geocoding made of it.
public struct Place: Codable, Sendable, Equatable {
    public var name: String
    public var address: String
    public var city: String
    public var country: String
    public var lat: Double
    public var lon: Double
    /// IANA time zone (`Europe/Kyiv`) in which calendar files show the meeting.
    public var timeZone: String

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
    public var amount: Decimal
    public var currency: String

    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}
