import GRDB

/// What a feed query needs to know about the person asking, read fresh for every first
/// page with small indexed lookups: a new friendship or block shows at once, and the
/// lookups cost far less than keeping a cache of them right would.
struct FeedViewer: Sendable {
    /// Users the viewer blocked or who blocked the viewer: their meetings are hidden.
    var blockedUserIds: [String] = []
    /// The activities on the viewer's profile (for relevance only).
    var activityIds: [String] = []
    /// The viewer's friends (for relevance only).
    var friendIds: [String] = []

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
