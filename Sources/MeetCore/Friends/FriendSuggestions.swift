import GRDB

extension FriendService {
    /// Most suggestions one call returns.
    public static let maxSuggestions = 50

    /// People I may know: friends of my friends and people whose profiles list my activities,
    /// best first by `2 × mutual friends + shared activities`. Never myself, my friends,
    /// anyone a request is pending with, anyone either of us blocked, or anyone unconfirmed
    /// or banned.
    public func suggestions(for me: String, limit: Int = 20) async throws -> [FriendSuggestion] {
        let limit = min(max(limit, 1), Self.maxSuggestions)
        return try await database.reader.read { db in
            try SQLRequest<FriendSuggestion>(literal: """
                WITH myFriend AS (SELECT friendId AS id FROM friendship WHERE userId = \(me)),
                mutual AS (
                    SELECT friendship.friendId AS id, COUNT(*) AS count
                    FROM friendship JOIN myFriend ON friendship.userId = myFriend.id
                    GROUP BY friendship.friendId
                ),
                shared AS (
                    SELECT theirs.userId AS id, COUNT(*) AS count
                    FROM profileActivity AS mine
                    JOIN profileActivity AS theirs ON theirs.activityId = mine.activityId
                    WHERE mine.userId = \(me)
                    GROUP BY theirs.userId
                ),
                candidate AS (SELECT id FROM mutual UNION SELECT id FROM shared)
                SELECT user.id, user.displayName,
                       COALESCE(mutual.count, 0) AS mutualFriends, COALESCE(shared.count, 0) AS sharedActivities
                FROM candidate
                JOIN user ON user.id = candidate.id
                LEFT JOIN mutual ON mutual.id = candidate.id
                LEFT JOIN shared ON shared.id = candidate.id
                WHERE user.id <> \(me)
                  AND user.id NOT IN (SELECT id FROM myFriend)
                  AND NOT EXISTS (
                      SELECT 1 FROM friendRequest
                      WHERE (fromUserId = \(me) AND toUserId = user.id) OR (fromUserId = user.id AND toUserId = \(me)))
                  AND \(UserVisibility.visible(to: me))
                ORDER BY 2 * mutualFriends + sharedActivities DESC, user.id
                LIMIT \(limit)
                """).fetchAll(db)
        }
    }
}
