/// What a geocoder found: a place with its name, address, town, region, country and time
/// zone, as `/places/search` and `/places/reverse` return it. (A meeting stores its own
/// `Place`, filled from one of these.)
///
/// The offline gazetteer knows towns, not streets: its `city` is the town, and `address`
/// holds only what the caller typed before the town (`"Khreshchatyk 22, Kyiv"`).
public struct GeocodedPlace: Sendable, Equatable, Codable {
    /// What to show first: the address the caller typed, else the town's name.
    public var name: String
    /// The part of the query before the town, as typed; nil when only a town was asked for.
    public var address: String?
    /// The town (for a district, the city it belongs to).
    public var city: String?
    /// First-level region (state, oblast, province).
    public var region: String?
    /// Country name in English.
    public var country: String?
    /// ISO 3166-1 alpha-2 code.
    public var countryCode: String?
    /// Latitude of the town, in degrees.
    public var lat: Double
    /// Longitude of the town, in degrees.
    public var lon: Double
    /// IANA time zone identifier, e.g. `Europe/Kyiv`.
    public var timeZone: String?
    /// Distance from the position the caller gave, in kilometres.
    public var distanceKm: Double?

    /// Makes a result from its parts; only the name and the point are required.
    public init(
        name: String, address: String? = nil, city: String? = nil, region: String? = nil,
        country: String? = nil, countryCode: String? = nil, lat: Double, lon: Double,
        timeZone: String? = nil, distanceKm: Double? = nil
    ) {
        self.name = name
        self.address = address
        self.city = city
        self.region = region
        self.country = country
        self.countryCode = countryCode
        self.lat = lat
        self.lon = lon
        self.timeZone = timeZone
        self.distanceKm = distanceKm
    }

    /// Where the place is.
    public var coordinate: Coordinate { Coordinate(lat: lat, lon: lon) }
}
