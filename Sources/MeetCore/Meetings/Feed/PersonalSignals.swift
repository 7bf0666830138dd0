import GRDB

/// What the relevance ranking knows about the viewer, for a set of candidate meetings.
enum PersonalSignals {
    static func fetch(for viewerId: String, candidates: [String], in db: Database) throws -> Relevance.Signals {
        var signals = Relevance.Signals()
        let ids = FeedCandidates.jsonArray(candidates)
        let mine = try viewerActivityIds(viewerId, in: db)
        let rows = try Row.fetchCursor(db, sql: """
            SELECT meetingId, COUNT(*) AS total, SUM(activityId IN (SELECT value FROM json_each(?))) AS shared
            FROM meetingActivity WHERE meetingId IN (SELECT value FROM json_each(?)) GROUP BY meetingId
            """, arguments: [FeedCandidates.jsonArray(mine), ids])
        while let row = try rows.next() {
            signals.activities[row["meetingId"]] = (row["total"], row["shared"])
        }
        let friends = try Row.fetchCursor(db, sql: """
            SELECT mm.meetingId, COUNT(*) AS going FROM meetingMember mm
            JOIN friendship f ON f.userId = ? AND f.friendId = mm.userId
            WHERE mm.meetingId IN (SELECT value FROM json_each(?)) GROUP BY mm.meetingId
            """, arguments: [viewerId, ids])
        while let row = try friends.next() {
            signals.friendsGoing[row["meetingId"]] = row["going"]
        }
        return signals
    }

    /// The activities on the viewer's profile.
    static func viewerActivityIds(_ viewerId: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT activityId FROM profileActivity WHERE userId = ?", arguments: [viewerId])
    }
}
