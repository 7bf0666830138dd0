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
    /// Filled in once the point is known.
    var distanceKm: Double?

    init(row: Row) {
        number = row["number"]
        id = row["id"]
        startsAt = row["startsAt"]
        online = row["online"]
        lat = row["lat"]
        lon = row["lon"]
        memberCount = row["memberCount"]
        maxParticipants = row["maxParticipants"]
    }

    var isFull: Bool { maxParticipants.map { memberCount >= $0 } ?? false }
}

/// Finds the meetings matching a feed request through the indexes: the R*Tree for a point
/// and radius, the partial time indexes otherwise. At most `limit` of them, soonest first,
/// none organized by someone the viewer blocked or who blocked the viewer.
enum FeedCandidates {
    static let columns: SQL = "m.number, m.id, m.startsAt, m.online, m.lat, m.lon, m.memberCount, m.maxParticipants"

    static func fetch(_ request: FeedRequest, viewer: String, from start: Date, limit: Int, in db: Database) throws -> [FeedCandidate] {
        let rows = try SQLRequest<FeedCandidate>(literal: query(request, viewer: viewer, from: start, limit: limit)).fetchAll(db)
        guard let center = request.center else { return rows }
        let radius = request.radiusKm ?? FeedRequest.defaultRadiusKm
        var nearby: [FeedCandidate] = []
        for var row in rows {
            if let lat = row.lat, let lon = row.lon {
                row.distanceKm = center.distanceKm(to: GeoPoint(lat: lat, lon: lon))
            }
            // The box has corners; the radius does not.
            if row.online || (row.distanceKm ?? .infinity) <= radius { nearby.append(row) }
            if nearby.count == limit { break }
        }
        return nearby
    }

    /// The SQL that finds the candidates (soonest first); tests read its query plan.
    static func query(_ request: FeedRequest, viewer: String, from start: Date, limit: Int) -> SQL {
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
        filters.append(Blocks.neitherBlocked(viewer, "m.organizerId"))
        let common = filters.joined(separator: " AND ")
        // The same terms as the partial indexes, so that SQLite can use them.
        let listed: SQL = "m.visibility = 'public' AND m.cancelledAt IS NULL"

        guard let center = request.center else {
            return "SELECT \(columns) FROM meeting m WHERE \(listed) AND \(common) ORDER BY m.startsAt, m.number LIMIT \(limit)"
        }
        let box = center.boundingBox(radiusKm: request.radiusKm ?? FeedRequest.defaultRadiusKm)
        let inBox: SQL = box.lon
            .map { range -> SQL in "(p.minLon >= \(range.lowerBound) AND p.maxLon <= \(range.upperBound))" }
            .joined(separator: " OR ")
        // Nearby meetings from the R*Tree, plus online ones wherever they are.
        return """
            SELECT * FROM (
                SELECT \(columns) FROM meetingPoint p JOIN meeting m ON m.number = p.number
                WHERE p.minLat >= \(box.lat.lowerBound) AND p.maxLat <= \(box.lat.upperBound) AND (\(inBox)) AND \(common)
                UNION ALL
                SELECT \(columns) FROM meeting m
                WHERE m.online = 1 AND \(listed) AND \(common)
            ) ORDER BY startsAt, number
            """
    }

    static func jsonArray(_ values: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
