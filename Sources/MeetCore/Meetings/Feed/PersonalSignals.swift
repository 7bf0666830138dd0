import GRDB

/// What the relevance ranking knows about the viewer, for a set of candidate meetings.
enum PersonalSignals {
    static func fetch(for viewerId: String, candidates: [String], in db: Database) throws -> Relevance.Signals {
        var signals = Relevance.Signals()
        let ids = FeedCandidates.jsonArray(candidates)
        let mine = FeedCandidates.jsonArray(try viewerActivityIds(viewerId, in: db))
        // CROSS JOIN keeps SQLite walking the candidates and seeking their rows, rather than
        // reading whole tables and testing each row against the list.
        let activities = try Row.fetchCursor(db, sql: """
            SELECT ma.meetingId, COUNT(*) AS total, SUM(ma.activityId IN (SELECT value FROM json_each(?))) AS shared
            FROM json_each(?) AS candidate CROSS JOIN meetingActivity ma ON ma.meetingId = candidate.value
            GROUP BY ma.meetingId
            """, arguments: [mine, ids])
        while let row = try activities.next() {
            signals.activities[row["meetingId"]] = (row["total"], row["shared"])
        }
        // From the viewer's few friends to the meetings they go to, kept to the candidates.
        let friends = try Row.fetchCursor(db, sql: """
            SELECT mm.meetingId, COUNT(*) AS going
            FROM friendship f CROSS JOIN meetingMember mm ON mm.userId = f.friendId
            WHERE f.userId = ? AND mm.meetingId IN (SELECT value FROM json_each(?))
            GROUP BY mm.meetingId
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
