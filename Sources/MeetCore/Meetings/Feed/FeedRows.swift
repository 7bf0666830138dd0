import GRDB

/// Reads listed meetings (public, not cancelled) for the feed index: all upcoming ones when
/// it loads, the few a commit touched afterwards. Both go through indexes: the partial
/// time index `meeting_feed_time`, or the primary key.
enum FeedRows {
    /// The listed meetings starting at or after `start`, in time order.
    static func upcoming(from start: Double, in db: Database) throws -> [FeedRow] {
        try fetch(where: "m.startsAt >= \(start)", in: db)
    }

    /// Those of `numbers` that are listed and start at or after `start`.
    static func meetings(_ numbers: Set<Int64>, from start: Double, in db: Database) throws -> [FeedRow] {
        // One JSON parameter, not one per meeting: a commit may touch more meetings than
        // SQLite allows parameters.
        let list = "[" + numbers.map(String.init).joined(separator: ",") + "]"
        return try fetch(where: "m.number IN (SELECT value FROM json_each(\(list))) AND m.startsAt >= \(start)", in: db)
    }

    /// The SQL of each read, for tests to check their query plans.
    static func queries(where condition: SQL) -> [SQL] {
        // The same terms as the partial indexes, so that SQLite can use them.
        let listed: SQL = "m.visibility = 'public' AND m.cancelledAt IS NULL AND \(condition)"
        return [
            """
            SELECT m.number, m.startsAt, m.online, m.lat, m.lon, m.memberCount, m.maxParticipants,
                   m.priceMinor IS NULL, m.organizerId
            FROM meeting m WHERE \(listed) ORDER BY m.startsAt, m.number
            """,
            "SELECT m.number, a.activityId FROM meeting m JOIN meetingActivity a ON a.meetingId = m.id WHERE \(listed)",
            "SELECT m.number, mm.userId FROM meeting m JOIN meetingMember mm ON mm.meetingId = m.id WHERE \(listed)",
        ]
    }

    private static func fetch(where condition: SQL, in db: Database) throws -> [FeedRow] {
        let sql = queries(where: condition)
        var rows: [FeedRow] = []
        var positions: [Int64: Int] = [:]
        let meetings = try Row.fetchCursor(db, SQLRequest(literal: sql[0]))
        while let row = try meetings.next() {
            positions[row[0]] = rows.count
            rows.append(FeedRow(
                number: row[0], startsAt: row[1], online: row[2], lat: row[3], lon: row[4], memberCount: row[5],
                maxParticipants: row[6], isFree: row[7], organizerId: row[8]))
        }
        let activities = try Row.fetchCursor(db, SQLRequest(literal: sql[1]))
        while let row = try activities.next() {
            if let position = positions[row[0]] { rows[position].activityIds.append(row[1]) }
        }
        let members = try Row.fetchCursor(db, SQLRequest(literal: sql[2]))
        while let row = try members.next() {
            if let position = positions[row[0]] { rows[position].memberIds.append(row[1]) }
        }
        return rows
    }
}
