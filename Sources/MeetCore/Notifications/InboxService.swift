import Foundation
import GRDB

/// The in-app inbox: every notification of a user, newest first, and what they have read.
public struct InboxService: Sendable {
    /// The most entries one page holds, and how many ids one read request may name.
    public static let maximumLimit = 100
    /// The most notification ids one mark-read request may name.
    public static let maximumReadIds = 500

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates read marks with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// A page of `userId`'s inbox, newest first, starting after `cursor` (a previous page's
    /// `nextCursor`); the cursor of the next page, nil on the last.
    /// - Throws: 422 naming `cursor` when it is not one this service handed out.
    public func page(of userId: String, cursor: String?, limit: Int) async throws -> (items: [InboxNotification], nextCursor: String?) {
        var before = Int64.max
        if let cursor {
            guard let value = Int64(cursor), value > 0 else { throw MeetError.invalidField("cursor", "field.invalid") }
            before = value
        }
        let items = try await database.quickRead { [before] db in
            try Self.entries(of: userId).filter(Column("seq") < before)
                .order(Column("seq").desc).limit(limit + 1).fetchAll(db)
        }
        let page = Array(items.prefix(limit))
        return (page, items.count > limit ? page.last?.seq.map(String.init) : nil)
    }

    /// Marks `ids` of `userId`'s notifications read (others' ids are ignored), or all of
    /// them when `ids` is nil; answers how many stay unread.
    public func markRead(_ ids: [String]?, of userId: String) async throws -> Int {
        try await database.writer.write { [now] db in
            var unread = Self.entries(of: userId).filter(Column("readAt") == nil)
            if let ids { unread = unread.filter(ids.contains(Column("id"))) }
            try unread.updateAll(db, Column("readAt").set(to: now()))
            return try Self.unreadCount(of: userId, db)
        }
    }

    /// How many of `userId`'s notifications are unread: the badge on the app's icon.
    public static func unreadCount(of userId: String, _ db: Database) throws -> Int {
        try entries(of: userId).filter(Column("readAt") == nil).fetchCount(db)
    }

    /// `userId`'s inbox entries: their notifications but those of chat messages, which the room
    /// list counts (``ChatPushes``).
    static func entries(of userId: String) -> QueryInterfaceRequest<InboxNotification> {
        InboxNotification.filter(Column("userId") == userId && Column("kind") != ChatPushes.kind)
    }
}
