import Foundation
import GRDB

/// What presence keeps on disk: whether a user hides their presence, and when they were last
/// seen. Everything else about presence lives in the server's memory; `lastSeenAt` is written in
/// batches (``saveLastSeen(_:)``), never on each connect.
public struct PresenceStore: Sendable {
    let database: AppDatabase

    /// A store keeping presence settings and last-seen times in `database`.
    public init(database: AppDatabase) {
        self.database = database
    }

    /// Whether `userId` hides their presence, and the ids of their friends: what the server
    /// reads once when a user's first session connects.
    public func profile(of userId: String) async throws -> (hidden: Bool, friends: [String]) {
        try await database.quickRead { db in
            let hidden = try Bool.fetchOne(db, sql: "SELECT hidden FROM presence WHERE userId = ?", arguments: [userId]) ?? false
            let friends = try String.fetchAll(db, sql: "SELECT friendId FROM friendship WHERE userId = ?", arguments: [userId])
            return (hidden, friends)
        }
    }

    /// The friends of `userId` (or only `friendId`, if they are friends) with whether each
    /// hides their presence and when each was last seen (nil for those who hide it): what a
    /// presence snapshot starts from, and what a friend's profile shows.
    public func friendStates(of userId: String, only friendId: String? = nil) async throws -> [(userId: String, hidden: Bool, lastSeenAt: Date?)] {
        try await database.quickRead { db in
            try Row.fetchAll(db, sql: """
                SELECT friendship.friendId AS userId, COALESCE(presence.hidden, 0) AS hidden, presence.lastSeenAt AS lastSeenAt
                FROM friendship LEFT JOIN presence ON presence.userId = friendship.friendId
                WHERE friendship.userId = ? AND (? IS NULL OR friendship.friendId = ?) ORDER BY friendship.friendId
                """, arguments: [userId, friendId, friendId]).map { row in
                let hidden: Bool = row["hidden"]
                return (row["userId"], hidden, hidden ? nil : (row["lastSeenAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// Hides (or shows again) `userId`'s presence to everyone.
    public func setHidden(_ hidden: Bool, for userId: String) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO presence (userId, hidden) VALUES (?, ?)
                ON CONFLICT (userId) DO UPDATE SET hidden = excluded.hidden
                """, arguments: [userId, hidden])
        }
    }

    /// Records when each user was last seen, in one transaction.
    public func saveLastSeen(_ times: [String: Date]) async throws {
        guard !times.isEmpty else { return }
        try await database.writer.write { db in
            for (userId, time) in times {
                try db.execute(sql: """
                    INSERT INTO presence (userId, lastSeenAt) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM user WHERE id = ?)
                    ON CONFLICT (userId) DO UPDATE SET lastSeenAt = max(COALESCE(lastSeenAt, 0), excluded.lastSeenAt)
                    """, arguments: [userId, time.timeIntervalSince1970, userId])
            }
        }
    }
}
