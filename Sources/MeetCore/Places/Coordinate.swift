import Foundation

/// A point on the Earth in WGS 84 degrees, as phones report it.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Latitude in degrees, −90…90 (north positive).
    public var lat: Double
    /// Longitude in degrees, −180…180 (east positive).
    public var lon: Double

    /// Mean Earth radius of the haversine formula, in kilometres.
    static let earthRadiusKm = 6371.0088

    /// A point from degrees, taken as they are (no range check).
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// Checks a position a client sent: latitude within ±90, longitude within ±180.
    /// - Throws: `MeetError` `place.invalidCoordinates` naming the fields that are out of range.
    public init(validatingLat lat: Double, lon: Double) throws {
        var problems: [MeetError.FieldProblem] = []
        if !(lat.isFinite && (-90...90).contains(lat)) {
            problems.append(.init(field: "lat", code: "field.outOfRange"))
        }
        if !(lon.isFinite && (-180...180).contains(lon)) {
            problems.append(.init(field: "lon", code: "field.outOfRange"))
        }
        guard problems.isEmpty else {
            throw MeetError("place.invalidCoordinates", status: 422, fieldProblems: problems)
        }
        self.init(lat: lat, lon: lon)
    }

    /// Great-circle distance in kilometres (haversine; good to 0.5 % anywhere).
    public func distanceKm(to other: Coordinate) -> Double {
        let φ1 = lat * .pi / 180, φ2 = other.lat * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (other.lon - lon) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadiusKm * asin(min(1, h.squareRoot()))
    }
}
