import Foundation
import GRDB

/// A meeting the feed may show, with just what filtering and ranking need.
struct FeedCandidate: FetchableRecord, Sendable {
    var number: Int64
    var id: String
    var startsAt: Double
    var online: Bool
    var lat: Double?
    var lon: Double?
    var memberCount: Int
    var maxParticipants: Int?
    /// From the point asked about; `nil` without one and for online meetings.
    var distanceKm: Double?

    /// Reads the columns by position, in the order of `FeedCandidates.columns` then the
    /// distance: name lookups were a visible share of the feed's time.
    init(row: Row) {
        number = row[0]
        id = row[1]
        startsAt = row[2]
        online = row[3]
        lat = row[4]
        lon = row[5]
        memberCount = row[6]
        maxParticipants = row[7]
        distanceKm = row.count > 8 ? row[8] : nil
    }

    var isFull: Bool { maxParticipants.map { memberCount >= $0 } ?? false }
}

/// Finds the meetings matching a feed request through the indexes: the R*Tree for a point
/// and radius, the partial time indexes otherwise. At most `limit` of them, soonest first,
/// none organized by someone the viewer blocked or who blocked the viewer.
enum FeedCandidates {
    static let columns: SQL = "m.number, m.id, m.startsAt, m.online, m.lat, m.lon, m.memberCount, m.maxParticipants"

    static func fetch(_ request: FeedRequest, viewer: String, from start: Date, limit: Int, in db: Database) throws -> [FeedCandidate] {
        // Most people block nobody: then the per-row block test is left out.
        let blocks = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM block WHERE blockerId = ?1 OR blockedId = ?1)", arguments: [viewer]) ?? false
        let sql = query(request, viewer: blocks ? viewer : nil, from: start, limit: limit)
        return try SQLRequest<FeedCandidate>(literal: sql).fetchAll(db)
    }

    /// The SQL that finds the candidates (soonest first), hiding organizers blocked either
    /// way by `viewer` when one is given; tests read its query plan.
    static func query(_ request: FeedRequest, viewer: String?, from start: Date, limit: Int) -> SQL {
        var filters: [SQL] = ["m.startsAt >= \(start.timeIntervalSince1970)"]
        if let to = request.to { filters.append("m.startsAt < \(to.timeIntervalSince1970)") }
        if request.freeOnly { filters.append("m.priceMinor IS NULL") }
        if request.hasSpots { filters.append("(m.maxParticipants IS NULL OR m.memberCount < m.maxParticipants)") }
        if !request.activityIds.isEmpty {
            filters.append("""
                m.id IN (SELECT meetingId FROM meetingActivity
                         WHERE activityId IN (SELECT value FROM json_each(\(jsonArray(request.activityIds)))))
                """)
        }
        if let viewer { filters.append(Blocks.neitherBlocked(viewer, "m.organizerId")) }
        let common = filters.joined(separator: " AND ")
        // The same terms as the partial indexes, so that SQLite can use them.
        let listed: SQL = "m.visibility = 'public' AND m.cancelledAt IS NULL"

        guard let circle = request.circle else {
            return "SELECT \(columns) FROM meeting m WHERE \(listed) AND \(common) ORDER BY m.startsAt, m.number LIMIT \(limit)"
        }
        // All boxes share their latitudes; only a circle across the 180° meridian has two
        // longitude ranges. Constraints outside an OR are the ones the R*Tree can use.
        let boxes = circle.boundingBoxes
        let longitudes: SQL = boxes.map { box -> SQL in "(p.minLon >= \(box.minLon) AND p.maxLon <= \(box.maxLon))" }
            .joined(separator: " OR ")
        let inBox: SQL = "p.minLat >= \(boxes[0].minLat) AND p.maxLat <= \(boxes[0].maxLat) AND (\(longitudes))"
        // Great-circle distance (haversine) in SQLite's math functions, so that only the rows
        // kept ever reach Swift.
        let distance: SQL = """
            (2 * \(Coordinate.earthRadiusKm) * asin(min(1, sqrt(
                pow(sin(radians(m.lat - \(circle.lat)) / 2), 2)
                + cos(radians(\(circle.lat))) * cos(radians(m.lat)) * pow(sin(radians(m.lon - \(circle.lon)) / 2), 2)))))
            """
        // Nearby meetings from the R*Tree (the box has corners, the radius does not), plus
        // online ones wherever they are.
        return """
            SELECT * FROM (
                SELECT \(columns), \(distance) AS distanceKm FROM meetingPoint p JOIN meeting m ON m.number = p.number
                WHERE \(inBox) AND \(common) AND \(distance) <= \(circle.radiusKm)
                UNION ALL
                SELECT \(columns), NULL AS distanceKm FROM meeting m
                WHERE m.online = 1 AND \(listed) AND \(common)
            ) ORDER BY startsAt, number LIMIT \(limit)
            """
    }

    static func jsonArray(_ values: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
