import Foundation
import Testing
@testable import MeetCore

/// The least distance from a circle's centre to a grid cell is a lower bound of the distance
/// to every point of the cell, also across the antimeridian and near the poles, and away
/// from the poles not a useless one.
@Suite struct FeedCellDistanceTests {
    @Test func noPointOfACellIsNearer() {
        var random = SpatialGridTests.Lcg(state: 11)
        var farCells = 0
        for _ in 0..<300 {
            let lat = [
                Double.random(in: -60...60, using: &random), Double.random(in: 80...89, using: &random), 89.95, -89.97,
            ][Int.random(in: 0...3, using: &random)]
            let lon = [Double.random(in: -180...180, using: &random), 179.97, -179.96][Int.random(in: 0...2, using: &random)]
            let circle = GeoCircle(lat: lat, lon: lon, radiusKm: Double.random(in: 1...60, using: &random))
            let bound = FeedCellDistance(circle)
            for box in circle.boundingBoxes {
                let size = FeedIndexState.cellDegrees
                let latIndex = Int64((Double.random(in: box.minLat...box.maxLat, using: &random) / size).rounded(.down))
                let lonIndex = Int64((Double.random(in: box.minLon...box.maxLon, using: &random) / size).rounded(.down))
                let nearest = bound.nearestKm(latIndex: latIndex, lonIndex: lonIndex)
                var least = Double.infinity
                for _ in 0..<200 {
                    let pointLat = min(90, (Double(latIndex) + Double.random(in: 0...1, using: &random)) * size)
                    let pointLon = (Double(lonIndex) + Double.random(in: 0...1, using: &random)) * size
                    least = min(least, circle.distanceKm(toLat: pointLat, lon: pointLon))
                }
                // The cell's corners, and the centre's latitude and longitude clamped into the
                // cell: where the nearest point often is.
                let (south, west) = (Double(latIndex) * size, Double(lonIndex) * size)
                let clampedLat = min(max(lat, south), south + size)
                let clampedLon = min(max(lon, west), west + size)
                for (pointLat, pointLon) in [
                    (south, west), (south, west + size), (south + size, west), (south + size, west + size),
                    (clampedLat, west), (clampedLat, west + size), (south, clampedLon), (south + size, clampedLon),
                    (clampedLat, clampedLon),
                ] {
                    least = min(least, circle.distanceKm(toLat: min(90, max(-90, pointLat)), lon: pointLon))
                }
                #expect(nearest <= least, "cell \(latIndex), \(lonIndex) around \(lat), \(lon)")
                // Away from the poles, where the bound takes the cosine of the highest latitude.
                if least > 5 && abs(lat) < 70 {
                    farCells += 1
                    #expect(nearest > least / 2, "cell \(latIndex), \(lonIndex) around \(lat), \(lon): \(nearest) of \(least)")
                }
            }
        }
        #expect(farCells > 50)
    }
}
