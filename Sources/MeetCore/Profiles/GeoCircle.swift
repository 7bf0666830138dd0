import Foundation

/// A circle on the Earth's surface, and the latitude/longitude boxes that cover it, for
/// asking a spatial index before measuring exact distances.
struct GeoCircle {
    static let kmPerDegreeOfLatitude = Coordinate.earthRadiusKm * .pi / 180

    /// A range of latitudes and longitudes, in degrees.
    struct Box: Equatable {
        var minLat, maxLat, minLon, maxLon: Double
    }

    var lat: Double
    var lon: Double
    var radiusKm: Double

    /// One box, or two when the circle crosses the 180° meridian; near a pole the box takes
    /// every longitude.
    var boundingBoxes: [Box] {
        let latSpan = radiusKm / Self.kmPerDegreeOfLatitude
        let minLat = max(-90, lat - latSpan)
        let maxLat = min(90, lat + latSpan)
        // The widest part of the circle is at the latitude farthest from the equator.
        let widest = max(abs(minLat), abs(maxLat))
        let kmPerDegreeOfLongitude = Self.kmPerDegreeOfLatitude * cos(widest * .pi / 180)
        guard kmPerDegreeOfLongitude > 0, radiusKm / kmPerDegreeOfLongitude < 180 else {
            return [Box(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180)]
        }
        let lonSpan = radiusKm / kmPerDegreeOfLongitude
        let (west, east) = (lon - lonSpan, lon + lonSpan)
        func box(_ minLon: Double, _ maxLon: Double) -> Box {
            Box(minLat: minLat, maxLat: maxLat, minLon: minLon, maxLon: maxLon)
        }
        if west < -180 { return [box(west + 360, 180), box(-180, east)] }
        if east > 180 { return [box(west, 180), box(-180, east - 360)] }
        return [box(west, east)]
    }

    /// Great-circle distance from the centre.
    func distanceKm(toLat otherLat: Double, lon otherLon: Double) -> Double {
        Coordinate(lat: lat, lon: lon).distanceKm(to: Coordinate(lat: otherLat, lon: otherLon))
    }
}
