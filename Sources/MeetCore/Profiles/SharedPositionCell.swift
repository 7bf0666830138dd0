import Foundation

/// The cell of a coarse latitude/longitude grid that a shared position falls in: what a nearby
/// search measures to instead of the position itself, so that no answer depends on where in
/// its cell someone stands.
struct SharedPositionCell: Equatable {
    /// The grid's step in degrees: about 1.1 km north-south, less east-west away from the equator.
    static let degrees = 0.01
    /// The longest a cell can be corner to corner, in kilometres (at the equator).
    static let diagonalKm = degrees * GeoCircle.kmPerDegreeOfLatitude * 2.0.squareRoot()

    /// The centre of the cell.
    let lat: Double
    let lon: Double

    init(lat: Double, lon: Double) {
        // The cells of the poles and of the 180° meridian keep their centres on the globe.
        self.lat = min(90, ((lat / Self.degrees).rounded(.down) + 0.5) * Self.degrees)
        let lon = ((lon / Self.degrees).rounded(.down) + 0.5) * Self.degrees
        self.lon = lon > 180 ? lon - 360 : lon
    }
}

/// How a nearby search says how far someone is: whole kilometres rounded up ("within 1 km",
/// "1 to 2 km"), then steps of 5 km past 10 km, where finer steps say little to a person.
enum DistanceBucket {
    /// The upper bound, in kilometres, of the bucket `distanceKm` falls in.
    static func upperBoundKm(of distanceKm: Double) -> Double {
        let whole = max(1, distanceKm.rounded(.up))
        return whole <= 10 ? whole : (whole / 5).rounded(.up) * 5
    }
}
