import Foundation

/// Points filed by one-degree cells of latitude and longitude, to find the nearest one to a
/// position by looking only at the cells within reach instead of at every point.
struct SpatialGrid: Sendable {
    private static let rows = 180, columns = 360

    /// Where cell `c`'s point numbers start in `pointNumbers`; one more entry than cells.
    private let cellStarts: [Int32]
    private let pointNumbers: [Int32]
    private let points: [Coordinate]

    init(points: [Coordinate]) {
        var counts = [Int32](repeating: 0, count: Self.rows * Self.columns + 1)
        for point in points {
            counts[Self.cell(row: Self.row(point.lat), column: Self.column(point.lon)) + 1] += 1
        }
        for cell in 0..<(Self.rows * Self.columns) {
            counts[cell + 1] += counts[cell]
        }
        var next = counts
        var pointNumbers = [Int32](repeating: 0, count: points.count)
        for (number, point) in points.enumerated() {
            let cell = Self.cell(row: Self.row(point.lat), column: Self.column(point.lon))
            pointNumbers[Int(next[cell])] = Int32(number)
            next[cell] += 1
        }
        cellStarts = counts
        self.pointNumbers = pointNumbers
        self.points = points
    }

    /// The number of the point nearest to `position` and its distance, if one lies within
    /// `maxKm`.
    func nearest(to position: Coordinate, withinKm maxKm: Double) -> (number: Int, distanceKm: Double)? {
        points(near: position, withinKm: maxKm).min { $0.distanceKm < $1.distanceKm }
    }

    /// The numbers of the points within `maxKm` of `position`, with their distances.
    func points(near position: Coordinate, withinKm maxKm: Double) -> [(number: Int, distanceKm: Double)] {
        // The latitude and longitude span of the spherical cap of radius maxKm.
        let reach = maxKm / Coordinate.earthRadiusKm
        let latReach = reach * 180 / .pi
        let lowRow = Self.row(position.lat - latReach), highRow = Self.row(position.lat + latReach)
        var columns = 0..<Self.columns
        if abs(position.lat) + latReach < 90 {
            let lonReach = asin(min(1, sin(reach) / cos(position.lat * .pi / 180))) * 180 / .pi
            let first = Int((position.lon - lonReach + 180).rounded(.down))
            let last = Int((position.lon + lonReach + 180).rounded(.down))
            if last - first + 1 < Self.columns { columns = first..<(last + 1) }
        }
        var found: [(number: Int, distanceKm: Double)] = []
        for row in lowRow...highRow {
            for unwrapped in columns {
                let column = (unwrapped % Self.columns + Self.columns) % Self.columns
                let cell = Self.cell(row: row, column: column)
                for number in pointNumbers[Int(cellStarts[cell])..<Int(cellStarts[cell + 1])] {
                    let distance = position.distanceKm(to: points[Int(number)])
                    if distance <= maxKm { found.append((Int(number), distance)) }
                }
            }
        }
        return found
    }

    private static func row(_ lat: Double) -> Int {
        min(rows - 1, max(0, Int((lat + 90).rounded(.down))))
    }

    private static func column(_ lon: Double) -> Int {
        let column = Int((lon + 180).rounded(.down)) % columns
        return column < 0 ? column + columns : column
    }

    private static func cell(row: Int, column: Int) -> Int { row * columns + column }
}
