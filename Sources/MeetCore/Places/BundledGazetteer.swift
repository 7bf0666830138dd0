/// The default geocoder: the bundled gazetteer, loaded on the first lookup rather than when
/// the server starts, so that starting stays instant.
public struct BundledGazetteer: Geocoder {
    /// A geocoder on the gazetteer shipped with the server; nothing is loaded until the first lookup.
    public init() {}

    /// Towns matching `query`, best first (see ``Geocoder/search(_:near:limit:)``).
    public func search(_ query: String, near position: Coordinate?, limit: Int) async throws -> [GeocodedPlace] {
        try await GazetteerGeocoder.bundled().search(query, near: position, limit: limit)
    }

    /// The nearest known town to the point (see ``Geocoder/reverse(lat:lon:)``).
    public func reverse(lat: Double, lon: Double) async throws -> GeocodedPlace? {
        try await GazetteerGeocoder.bundled().reverse(lat: lat, lon: lon)
    }
}
