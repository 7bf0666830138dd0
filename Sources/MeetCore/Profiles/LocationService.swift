import Foundation
import GRDB

/// Where users are, whether they let others see it, and who is near a point.
public struct LocationService: Sendable {
    /// Bounds of a nearby search's radius, in kilometres.
    public static let radiusKm = 0.1...200.0
    /// Bounds of how many people one nearby search returns.
    public static let nearbyLimit = 1...100

    let database: AppDatabase
    let now: @Sendable () -> Date

    public init(database: AppDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// Someone near a point, with how far away they are, rounded to 100 m; their position
    /// itself is never handed out.
    public struct Neighbour: Sendable, Equatable {
        public var profile: Profile
        public var distanceKm: Double
    }

    /// A user's last known position and whether others may find them by it.
    public struct SharedLocation: Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var share: Bool
        public var updatedAt: Date
    }

    /// Records the position of `userId`. `share` nil keeps the previous setting; a first
    /// position is hidden unless the user says otherwise.
    public func update(_ userId: String, lat: Double, lon: Double, share: Bool?) async throws -> SharedLocation {
        try Self.check(lat: lat, lon: lon, error: { MeetError("location.invalid", status: 422, fieldProblems: $0) })
        return try await database.pool.write { [now] db in
            let share = try share ?? Bool.fetchOne(db, SQLRequest(literal: "SELECT shared FROM userLocation WHERE userId = \(userId)")) ?? false
            let location = SharedLocation(lat: lat, lon: lon, share: share, updatedAt: now())
            try db.execute(literal: """
                INSERT INTO userLocation (userId, lat, lon, shared, updatedAt)
                VALUES (\(userId), \(lat), \(lon), \(share), \(location.updatedAt))
                ON CONFLICT (userId) DO UPDATE SET
                    lat = excluded.lat, lon = excluded.lon, shared = excluded.shared, updatedAt = excluded.updatedAt
                """)
            return location
        }
    }

    /// Users who share their position within `radiusKm` of a point, nearest first; never
    /// `viewer`, never anyone hidden from them. The R*Tree narrows the search to the circle's
    /// bounding box; exact distances are measured only for what it returns.
    public func nearby(lat: Double, lon: Double, radiusKm: Double, seenBy viewer: String, limit: Int) async throws -> [Neighbour] {
        try Self.check(lat: lat, lon: lon, error: SearchQuery.invalid)
        guard Self.radiusKm.contains(radiusKm) else { throw SearchQuery.outOfRange("radiusKm", Self.radiusKm) }
        guard Self.nearbyLimit.contains(limit) else { throw SearchQuery.outOfRange("limit", Self.nearbyLimit) }
        let circle = GeoCircle(lat: lat, lon: lon, radiusKm: radiusKm)
        return try await database.pool.read { db in
            var inside: [(userId: String, distanceKm: Double)] = []
            for box in circle.boundingBoxes {
                for row in try Row.fetchAll(db, SQLRequest(literal: Self.sharedPositions(in: box, seenBy: viewer))) {
                    let distance = circle.distanceKm(toLat: row["lat"], lon: row["lon"])
                    if distance <= radiusKm { inside.append((row["userId"], distance)) }
                }
            }
            let nearest = inside.sorted { ($0.distanceKm, $0.userId) < ($1.distanceKm, $1.userId) }.prefix(limit)
            let profiles = try Profile.fetchAll(db, userIds: nearest.map(\.userId))
            return zip(profiles, nearest).map { Neighbour(profile: $0, distanceKm: ($1.distanceKm * 10).rounded() / 10) }
        }
    }

    /// The shared positions in a box, found through the R*Tree, of users `viewer` may see.
    /// Boxes are tested for overlap, not containment: the R*Tree stores 32-bit floats rounded
    /// outwards, and a point on the edge must not fall out.
    static func sharedPositions(in box: GeoCircle.Box, seenBy viewer: String) -> SQL {
        """
        SELECT userLocation.userId, userLocation.lat, userLocation.lon
        FROM userLocationIndex
        JOIN userLocation ON userLocation.id = userLocationIndex.id
        JOIN user ON user.id = userLocation.userId
        WHERE userLocationIndex.maxLat >= \(box.minLat) AND userLocationIndex.minLat <= \(box.maxLat)
          AND userLocationIndex.maxLon >= \(box.minLon) AND userLocationIndex.minLon <= \(box.maxLon)
          AND user.id <> \(viewer) AND \(UserVisibility.visible(to: viewer))
        """
    }

    private static func check(lat: Double, lon: Double, error: ([MeetError.FieldProblem]) -> MeetError) throws {
        var problems: [MeetError.FieldProblem] = []
        if !(-90...90).contains(lat) {
            problems.append(.init(field: "lat", code: "field.outOfRange", arguments: ["minimum": "-90", "maximum": "90"]))
        }
        if !(-180...180).contains(lon) {
            problems.append(.init(field: "lon", code: "field.outOfRange", arguments: ["minimum": "-180", "maximum": "180"]))
        }
        if !problems.isEmpty { throw error(problems) }
    }
}
