import Foundation

/// How near to a circle's centre any point of a grid cell can be: a lower bound in km,
/// without trigonometry per cell, so that a ranking can read the cells nearest first and
/// skip what no meeting of a cell can reach (`FeedRankingKey.lowest(locatedFrom:nearestKm:)`).
///
/// The haversine of the angle between two points is hav(Δφ) + cos φ₁ cos φ₂ hav(Δλ). Over a
/// cell it is at least hav(Δφ) + cos²φ · hav(Δλ) with the least latitude and longitude gaps
/// to the cell and φ the largest |latitude| anywhere near the circle; hav(x) = sin²(x/2),
/// sin y ≥ y − y³/6 and asin z ≥ z for y, z ≥ 0 make every step an underestimate.
struct FeedCellDistance {
    private let lat: Double
    private let lon: Double
    /// cos² of the largest |latitude| any of the circle's cells reaches.
    private let cosineSquared: Double

    init(_ circle: GeoCircle) {
        lat = circle.lat
        lon = circle.lon
        let reach = circle.boundingBoxes.reduce(abs(circle.lat)) { max($0, abs($1.minLat), abs($1.maxLat)) }
        let cosine = cos(min(90, reach + FeedIndexState.cellDegrees) * .pi / 180)
        cosineSquared = cosine * cosine
    }

    /// No point of the cell (`latIndex`, `lonIndex`) of `FeedIndexState`'s grid is nearer.
    func nearestKm(latIndex: Int64, lonIndex: Int64) -> Double {
        let size = FeedIndexState.cellDegrees
        let (south, west) = (Double(latIndex) * size, Double(lonIndex) * size)
        let latGap = max(0, south - lat, lat - (south + size))
        // Longitudes wrap: the gap is the least over the centre shifted by a turn either way.
        func gap(_ lon: Double) -> Double { max(0, west - lon, lon - (west + size)) }
        let lonGap = min(gap(lon - 360), gap(lon), gap(lon + 360))
        func halfSine(_ degrees: Double) -> Double {
            let y = min(degrees, 180) * .pi / 360
            return max(0, y - y * y * y / 6)
        }
        let (φ, λ) = (halfSine(latGap), halfSine(lonGap))
        let haversine = φ * φ + cosineSquared * λ * λ
        // A hair under, for rounding.
        return max(0, 2 * Coordinate.earthRadiusKm * haversine.squareRoot() * (1 - 1e-9) - 1e-6)
    }
}
