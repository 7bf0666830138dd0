import Foundation
import GRDB

/// Reads and edits profiles, and finds people by name.
public struct ProfileService: Sendable {
    /// Bounds of `limit` for a page of search results.
    public static let pageLimit = 1...100

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates profile changes with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// The profile of the signed-in user.
    public func profile(of userId: String) async throws -> Profile {
        try await database.quickRead { db in
            guard let profile = try Profile.fetchAll(db, userIds: [userId]).first else { throw Self.notFound }
            return profile
        }
    }

    /// Another user's profile as `viewer` may see it: 404 for unknown, unconfirmed or banned
    /// users and for anyone either of the two has blocked.
    public func profile(of userId: String, seenBy viewer: String) async throws -> Profile {
        try await database.quickRead { db in
            let visible = try Bool.fetchOne(db, SQLRequest(literal: """
                SELECT EXISTS (SELECT 1 FROM user WHERE id = \(userId) AND \(UserVisibility.visible(to: viewer)))
                """)) ?? false
            guard visible, let profile = try Profile.fetchAll(db, userIds: [userId]).first else { throw Self.notFound }
            return profile
        }
    }

    /// Stores a profile checked by `Profile(validating:...)`, replacing the user's previous
    /// one; its activities must exist, and those moderators hid may only stay, not be added.
    public func update(_ profile: Profile) async throws -> Profile {
        let userId = profile.userId
        return try await database.writer.write { [now] db in
            let current = try String.fetchAll(db, sql: "SELECT activityId FROM profileActivity WHERE userId = ?", arguments: [userId])
            let unknown = try ActivityService.unusableIds(profile.activityIds, keeping: current, in: db)
            if !unknown.isEmpty {
                throw Profile.invalid(profile.activityIds.enumerated().compactMap { index, id in
                    unknown.contains(id) ? .init(field: "activityIds.\(index)", code: "activity.unknown") : nil
                })
            }
            let currentPhoto = try String.fetchOne(db, sql: "SELECT photoId FROM profile WHERE userId = ?", arguments: [userId])
            try MediaAccess.checkPhoto(profile.photoId, replacing: currentPhoto, by: userId, in: db)
            try db.execute(literal: "UPDATE user SET displayName = \(profile.displayName) WHERE id = \(userId)")
            guard db.changesCount == 1 else { throw Self.notFound }
            try ProfileRecord(
                userId: userId, bio: profile.bio, birthDate: profile.birthDate, city: profile.city, photoId: profile.photoId,
                languages: profile.languages, updatedAt: now()
            ).upsert(db)
            try db.execute(literal: "DELETE FROM profileActivity WHERE userId = \(userId)")
            for activityId in profile.activityIds {
                try db.execute(literal: "INSERT INTO profileActivity (userId, activityId) VALUES (\(userId), \(activityId))")
            }
            return try Profile.fetchAll(db, userIds: [userId])[0]
        }
    }

    /// People whose display name has words starting with the words of `query` (all of them),
    /// in name order, a page at a time; an empty query lists everyone.
    public func searchUsers(matching query: String, seenBy viewer: String, after cursor: String?, limit: Int) async throws -> Page<Profile> {
        let position = try cursor.map(UserCursor.init(token:))
        guard Self.pageLimit.contains(limit) else { throw SearchQuery.outOfRange("limit", Self.pageLimit) }
        let sql = Self.peopleQuery(matching: SearchQuery.ftsPrefixQuery(try SearchQuery.typed(query)), seenBy: viewer, after: position, limit: limit + 1)
        return try await database.quickRead { db in
            let rows = try Row.fetchAll(db, SQLRequest(literal: sql))
            let page = rows.prefix(limit)
            let next = rows.count > limit ? page.last.map { UserCursor(displayName: $0["displayName"], userId: $0["id"]).token } : nil
            return Page(items: try Profile.fetchAll(db, userIds: page.map { $0["id"] }), nextCursor: next)
        }
    }

    /// Up to `limit` visible users after `position` in (displayName, id) order, whose name
    /// matches the FTS5 query `match` when there is one.
    static func peopleQuery(matching match: String?, seenBy viewer: String, after position: UserCursor?, limit: Int) -> SQL {
        var sql: SQL = "SELECT user.id, user.displayName FROM user WHERE \(UserVisibility.visible(to: viewer))"
        if let match {
            sql += " AND user.id IN (SELECT userId FROM userNameSearch WHERE userNameSearch MATCH \(match))"
        }
        if let position {
            sql += " AND (user.displayName, user.id) > (\(position.displayName), \(position.userId))"
        }
        return sql + " ORDER BY user.displayName, user.id LIMIT \(limit)"
    }

    static let notFound = MeetError("user.notFound", status: 404)
}

/// One page of a list, and the cursor of the next one (nil on the last page).
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page, in the list's order.
    public var items: [Item]
    /// Pass it back as `cursor` for the next page; nil on the last page.
    public var nextCursor: String?
}
