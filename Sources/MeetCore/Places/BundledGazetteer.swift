/// The default geocoder: the bundled gazetteer, loaded on the first lookup rather than when
/// the server starts, so that starting stays instant.
public struct BundledGazetteer: Geocoder {
    public init() {}

    public func search(_ query: String, near position: Coordinate?, limit: Int) async throws -> [GeocodedPlace] {
        try await GazetteerGeocoder.bundled().search(query, near: position, limit: limit)
    }

    public func reverse(lat: Double, lon: Double) async throws -> GeocodedPlace? {
        try await GazetteerGeocoder.bundled().reverse(lat: lat, lon: lon)
    }
}
