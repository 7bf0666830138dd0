import AsyncHTTPClient
import Foundation
import MeetCore
import NIOCore

/// A client of the Nominatim HTTP API (`/search` and `/reverse`, `format=jsonv2`), for
/// street-level addresses in production. Switched on by `--geocoder nominatim`.
///
/// Nominatim does not give time zones: each result takes the one of the nearest town that
/// `timeZones` (the offline gazetteer) knows.
public struct NominatimGeocoder: Geocoder {
    /// The service's root, e.g. `http://127.0.0.1:8088` for a local instance.
    public let baseURL: String
    let client: HTTPClient
    let timeZones: any Geocoder
    let timeout: TimeAmount
    /// Nominatim's usage policy asks every client to name itself.
    static let userAgent = "meetupd/1"
    /// Answers are small; anything bigger is not Nominatim.
    static let maxResponseBytes = 1 << 20

    public init(baseURL: String, client: HTTPClient = .shared, timeZones: any Geocoder = BundledGazetteer(), timeout: TimeAmount = .seconds(5)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.timeZones = timeZones
        self.timeout = timeout
    }

    public func search(_ query: String, near position: Coordinate?, limit: Int) async throws -> [GeocodedPlace] {
        var parameters = [
            ("q", try GeocoderQuery.validated(query)),
            ("limit", String(min(max(limit, 1), GeocoderQuery.maxLimit))),
        ]
        if let position {
            // A box of about 100 km around the caller boosts what lies inside it.
            let box = [position.lon - 1, position.lat + 1, position.lon + 1, position.lat - 1]
            parameters.append(("viewbox", box.map { String(format: "%.4f", $0) }.joined(separator: ",")))
        }
        let results = try await get("search", parameters, as: [NominatimPlace].self)
        return try await results.asyncMap { try await place(from: $0, near: position) }
    }

    public func reverse(lat: Double, lon: Double) async throws -> GeocodedPlace? {
        let position = try Coordinate(validatingLat: lat, lon: lon)
        let result = try await get("reverse", [("lat", String(lat)), ("lon", String(lon))], as: NominatimReverse.self)
        guard let found = result.place else { return nil }
        return try await place(from: found, near: position)
    }

    private func get<Response: Decodable>(_ endpoint: String, _ parameters: [(String, String)], as type: Response.Type) async throws -> Response {
        var components = URLComponents(string: "\(baseURL)/\(endpoint)")
        components?.queryItems = (parameters + [("format", "jsonv2"), ("addressdetails", "1")])
            .map { URLQueryItem(name: $0.0, value: $0.1) }
        guard let url = components?.url?.absoluteString else { throw Self.unavailable }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: Self.maxResponseBytes)
            guard response.status == .ok else { throw Self.unavailable }
            return try JSONDecoder().decode(Response.self, from: Data(buffer: body))
        } catch {
            // Refused, timed out, not 200 or not Nominatim's JSON: the caller may retry later.
            throw Self.unavailable
        }
    }

    private func place(from found: NominatimPlace, near position: Coordinate?) async throws -> GeocodedPlace {
        guard let lat = Double(found.lat), let lon = Double(found.lon) else { throw Self.unavailable }
        let address = found.address
        let town = try await timeZones.reverse(lat: lat, lon: lon)
        let street = [address?.road, address?.houseNumber].compactMap { $0 }.joined(separator: " ")
        let located = Coordinate(lat: lat, lon: lon)
        return GeocodedPlace(
            name: found.name.flatMap { $0.isEmpty ? nil : $0 } ?? found.displayName.components(separatedBy: ", ").first ?? found.displayName,
            address: street.isEmpty ? nil : street,
            city: address?.city ?? address?.town ?? address?.village ?? address?.municipality,
            region: address?.state, country: address?.country, countryCode: address?.countryCode?.uppercased(),
            lat: lat, lon: lon, timeZone: town?.timeZone,
            distanceKm: position.map { ($0.distanceKm(to: located) * 10).rounded() / 10 })
    }

    static let unavailable = MeetError("place.geocoderUnavailable", status: 503)
}

/// One result of Nominatim's `format=jsonv2`, as far as meetupd reads it.
struct NominatimPlace: Decodable {
    struct Address: Decodable {
        var road: String?
        var houseNumber: String?
        var city: String?
        var town: String?
        var village: String?
        var municipality: String?
        var state: String?
        var country: String?
        var countryCode: String?

        enum CodingKeys: String, CodingKey {
            case road, city, town, village, municipality, state, country
            case houseNumber = "house_number", countryCode = "country_code"
        }
    }

    var lat: String
    var lon: String
    var name: String?
    var displayName: String
    var address: Address?

    enum CodingKeys: String, CodingKey {
        case lat, lon, name, address
        case displayName = "display_name"
    }
}

/// Nominatim's `/reverse` answers a place, or `{"error": "Unable to geocode"}` for none.
struct NominatimReverse: Decodable {
    var place: NominatimPlace?

    init(from decoder: any Decoder) throws {
        let error = try decoder.container(keyedBy: ErrorKey.self).decodeIfPresent(String.self, forKey: .error)
        place = error == nil ? try NominatimPlace(from: decoder) : nil
    }

    private enum ErrorKey: String, CodingKey { case error }
}

extension Array {
    /// The results of `transform` on each element, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        for element in self {
            results.append(try await transform(element))
        }
        return results
    }
}
