import GRDB

/// What a feed query needs to know about the person asking, read with small indexed lookups
/// and kept for the next first page by ``FeedViewers``, which forgets it when any of it
/// changes: a new friendship or block shows at once.
struct FeedViewer: Sendable {
    /// Users the viewer blocked or who blocked the viewer: their meetings are hidden.
    var blockedUserIds: [String] = []
    /// The activities on the viewer's profile (for relevance only).
    var activityIds: [String] = []
    /// The viewer's friends (for relevance only).
    var friendIds: [String] = []

    /// Memory taken, roughly: each id and its place in its list, and the lists.
    var bytes: Int {
        [blockedUserIds, activityIds, friendIds].joined().reduce(160) { $0 + $1.utf8.count + 32 }
    }

    static func fetch(_ viewerId: String, forRelevance: Bool, in db: Database) throws -> FeedViewer {
        func ids(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
            try String.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        }
        var viewer = FeedViewer()
        viewer.blockedUserIds = try blockedUserIds(of: viewerId, in: db)
        if forRelevance {
            viewer.activityIds = try ids("SELECT activityId FROM profileActivity WHERE userId = ?", [viewerId])
            viewer.friendIds = try ids("SELECT friendId FROM friendship WHERE userId = ?", [viewerId])
        }
        return viewer
    }

    /// Users `viewerId` blocked or who blocked `viewerId`.
    static func blockedUserIds(of viewerId: String, in db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: """
            SELECT blockedId FROM block WHERE blockerId = ?1 UNION ALL SELECT blockerId FROM block WHERE blockedId = ?1
            """), arguments: [viewerId])
    }
}
