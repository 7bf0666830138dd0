import Testing
@testable import MeetCore

@Suite struct SpatialGridTests {
    /// A fixed-seed generator, so that a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func nearestAgreesWithLookingAtEveryPoint() {
        var random = SplitMix(state: 42)
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
