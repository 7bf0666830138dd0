import Foundation

/// Turns what people type into places and positions into place names.
///
/// Two implementations: ``GazetteerGeocoder`` (offline, the default) and the Nominatim
/// client in MeetServer, switched on by configuration.
public protocol Geocoder: Sendable {
    /// Places matching `query`, best first: names in any script, tolerant of typos, ranked
    /// by population and, when `position` is given, by distance from it.
    /// - Throws: `MeetError` `place.invalidQuery` for an empty or overlong query,
    ///   `place.geocoderUnavailable` when a remote geocoder fails.
    func search(_ query: String, near position: Coordinate?, limit: Int) async throws -> [GeocodedPlace]

    /// The nearest known place to a position, with its country, region and time zone;
    /// `nil` when nothing is known near it (open sea).
    /// - Throws: `MeetError` `place.invalidCoordinates`, or `place.geocoderUnavailable`.
    func reverse(lat: Double, lon: Double) async throws -> GeocodedPlace?
}

extension Geocoder {
    /// The ten best places matching `query`.
    public func search(_ query: String, near position: Coordinate? = nil) async throws -> [GeocodedPlace] {
        try await search(query, near: position, limit: 10)
    }
}

/// Limits every geocoder applies to a query before looking anything up.
public enum GeocoderQuery {
    /// Longest query accepted, in Unicode scalars (and three UTF-8 bytes each); one line.
    public static let maxLength = 200
    static let rule = TextRule(.oneLine, maximumScalars: maxLength)
    /// Most comma-separated parts a query is searched by (address, town, region...).
    public static let maxParts = 6
    /// Most results one search returns.
    public static let maxLimit = 50

    /// The trimmed query, or `place.invalidQuery` when it is empty or too long.
    public static func validated(_ query: String) throws -> String {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        let problem = trimmed.isEmpty ? "field.required" : rule.problem(with: trimmed)
        if let problem {
            throw MeetError(
                "place.invalidQuery", status: 422,
                arguments: ["maxLength": String(maxLength)],
                fieldProblems: [.init(field: "q", code: problem)])
        }
        return trimmed
    }
}
