import GRDB

extension FriendService {
    /// Most suggestions one call returns.
    public static let maxSuggestions = 50

    /// People I may know: friends of my friends, best first by `2 × mutual friends + shared
    /// activities`. Never myself, my friends, anyone a request is pending with, or anyone
    /// either of us blocked.
    public func suggestions(for me: String, limit: Int = 20) async throws -> [FriendSuggestion] {
        let limit = min(max(limit, 1), Self.maxSuggestions)
        return try await database.pool.read { db in
            try SQLRequest<FriendSuggestion>(literal: """
                WITH myFriend AS (SELECT friendId AS id FROM friendship WHERE userId = \(me)),
                mutual AS (
                    SELECT friendship.friendId AS id, COUNT(*) AS count
                    FROM friendship JOIN myFriend ON friendship.userId = myFriend.id
                    GROUP BY friendship.friendId
                )
                SELECT user.id, user.displayName, mutual.count AS mutualFriends, 0 AS sharedActivities
                FROM mutual JOIN user ON user.id = mutual.id
                WHERE user.id <> \(me)
                  AND user.id NOT IN (SELECT id FROM myFriend)
                  AND NOT EXISTS (
                      SELECT 1 FROM friendRequest
                      WHERE (fromUserId = \(me) AND toUserId = user.id) OR (fromUserId = user.id AND toUserId = \(me)))
                  AND \(Blocks.neitherBlocked(me, "user.id"))
                ORDER BY 2 * mutualFriends + sharedActivities DESC, user.id
                LIMIT \(limit)
                """).fetchAll(db)
        }
    }
}
