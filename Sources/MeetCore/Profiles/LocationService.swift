import Foundation
import GRDB

/// Where users are, whether they let others see it, and who is near a point.
public struct LocationService: Sendable {
    /// Bounds of a nearby search's radius, in kilometres.
    public static let radiusKm = 0.1...200.0
    /// Bounds of how many people one nearby search returns.
    public static let nearbyLimit = 1...100
    /// How far from the caller's own last position a nearby search may be centred: it finds
    /// people near where you are, and cannot be moved around someone to measure them from
    /// several sides.
    public static let maxCentreDistanceKm = 25.0

    /// Nearby searches one user may make: a burst of 20, then one every 6 seconds. Even
    /// coarse answers leak a position when asked often enough from everywhere allowed.
    static let searchBurst = 20
    static let searchesPerSecond = 1.0 / 6

    let database: AppDatabase
    let now: @Sendable () -> Date
    /// The same token bucket as chat posts, keyed by user alone.
    let searches = ChatRateLimit(burst: searchBurst, perSecond: searchesPerSecond)

    /// A service on `database` that dates positions with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Someone near a point, with how far away they are as a ``DistanceBucket``; their
    /// position itself is never handed out.
    public struct Neighbour: Sendable, Equatable {
        /// The neighbour's profile, as any viewer may see it.
        public var profile: Profile
        /// The upper bound of the distance's bucket: 1 means within 1 km, 2 between 1 and 2 km.
        public var distanceKm: Double
    }

    /// A user's last known position and whether others may find them by it.
    public struct SharedLocation: Sendable, Equatable {
        /// Latitude in degrees.
        public var lat: Double
        /// Longitude in degrees.
        public var lon: Double
        /// Whether others may find the user near this position.
        public var share: Bool
        /// When the position was last reported.
        public var updatedAt: Date
    }

    /// Records the position of `userId`. `share` nil keeps the previous setting; a first
    /// position is hidden unless the user says otherwise.
    public func update(_ userId: String, lat: Double, lon: Double, share: Bool?) async throws -> SharedLocation {
        try Self.check(lat: lat, lon: lon, error: { MeetError("location.invalid", status: 422, fieldProblems: $0) })
        return try await database.writer.write { [now] db in
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

    /// Users who share their position within `radiusKm` of a point near the viewer's own last
    /// position, nearest first; never `viewer`, never anyone hidden from them.
    ///
    /// Nothing finer than a ``SharedPositionCell`` and a ``DistanceBucket`` leaves: distances
    /// are measured to the centre of the cell a position falls in and rounded up to whole
    /// kilometres, so queries from any number of centres cannot place someone more closely
    /// than their cell. The R*Tree narrows the search to boxes around the circle widened by
    /// a cell; exact distances are measured only for what it returns.
    public func nearby(lat: Double, lon: Double, radiusKm: Double, seenBy viewer: String, limit: Int) async throws -> [Neighbour] {
        try Self.check(lat: lat, lon: lon, error: SearchQuery.invalid)
        guard Self.radiusKm.contains(radiusKm) else { throw SearchQuery.outOfRange("radiusKm", Self.radiusKm) }
        guard Self.nearbyLimit.contains(limit) else { throw SearchQuery.outOfRange("limit", Self.nearbyLimit) }
        if let wait = searches.take(user: viewer, room: "nearby", now: now()) {
            let seconds = String(Int(wait.rounded(.up)))
            throw MeetError("nearbySearch.rateLimited", status: 429, arguments: ["seconds": seconds], headers: ["Retry-After": seconds])
        }
        let circle = GeoCircle(lat: lat, lon: lon, radiusKm: radiusKm)
        let candidates = GeoCircle(lat: lat, lon: lon, radiusKm: radiusKm + SharedPositionCell.diagonalKm)
        return try await database.reader.read { db in
            try Self.checkCentre(of: circle, isNearTheLastPositionOf: viewer, in: db)
            var inside: [(userId: String, distanceKm: Double)] = []
            for box in candidates.boundingBoxes {
                for row in try Row.fetchAll(db, SQLRequest(literal: Self.sharedPositions(in: box, seenBy: viewer))) {
                    let cell = SharedPositionCell(lat: row["lat"], lon: row["lon"])
                    let distance = circle.distanceKm(toLat: cell.lat, lon: cell.lon)
                    if distance <= radiusKm { inside.append((row["userId"], distance)) }
                }
            }
            let nearest = inside.sorted { ($0.distanceKm, $0.userId) < ($1.distanceKm, $1.userId) }.prefix(limit)
            let profiles = try Profile.fetchAll(db, userIds: nearest.map(\.userId))
            return zip(profiles, nearest).map { Neighbour(profile: $0, distanceKm: DistanceBucket.upperBoundKm(of: $1.distanceKm)) }
        }
    }

    /// Refuses a search centred farther than ``maxCentreDistanceKm`` from the viewer's own
    /// last position, or made by a viewer who never gave one.
    private static func checkCentre(of circle: GeoCircle, isNearTheLastPositionOf viewer: String, in db: Database) throws {
        guard let own = try Row.fetchOne(db, sql: "SELECT lat, lon FROM userLocation WHERE userId = ?", arguments: [viewer]) else {
            throw MeetError.invalidFields(["lat", "lon"].map { .init(field: $0, code: "location.unknown") })
        }
        guard circle.distanceKm(toLat: own["lat"], lon: own["lon"]) <= maxCentreDistanceKm else {
            let limit = ["maximum": String(Int(maxCentreDistanceKm))]
            throw MeetError.invalidFields(["lat", "lon"].map { .init(field: $0, code: "location.tooFar", arguments: limit) })
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
        let problems = problems(lat: lat, lon: lon)
        if !problems.isEmpty { throw error(problems) }
    }

    /// What is wrong with a position a client sent (shared positions, live positions on the way).
    static func problems(lat: Double, lon: Double) -> [MeetError.FieldProblem] {
        var problems: [MeetError.FieldProblem] = []
        if !(-90...90).contains(lat) {
            problems.append(.init(field: "lat", code: "field.outOfRange", arguments: ["minimum": "-90", "maximum": "90"]))
        }
        if !(-180...180).contains(lon) {
            problems.append(.init(field: "lon", code: "field.outOfRange", arguments: ["minimum": "-180", "maximum": "180"]))
        }
        return problems
    }
}
