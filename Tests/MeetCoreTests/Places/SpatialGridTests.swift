import Testing
@testable import MeetCore

@Suite struct SpatialGridTests {
    /// A fixed-seed generator (Knuth's MMIX LCG, high bits), so that a failure can be replayed.
    struct Lcg: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    @Test func nearestAgreesWithLookingAtEveryPoint() {
        var random = Lcg(state: 42)
        let points = (0..<3000).map { _ in
            Coordinate(lat: .random(in: -90...90, using: &random), lon: .random(in: -180..<180, using: &random))
        }
        let grid = SpatialGrid(points: points)
        for _ in 0..<500 {
            let position = Coordinate(lat: .random(in: -90...90, using: &random), lon: .random(in: -180...180, using: &random))
            let reach = Double.random(in: 10...3000, using: &random)
            let expected = points.enumerated()
                .map { ($0.offset, position.distanceKm(to: $0.element)) }
                .filter { $0.1 <= reach }
                .min { $0.1 < $1.1 }
            let found = grid.nearest(to: position, withinKm: reach)
            #expect(found?.distanceKm == expected?.1, "at \(position) within \(reach) km")
        }
    }
}
