import GRDB

/// Tables of the friend graph (migrations 200–299): pending friend requests, friendships and
/// blocks. Deleting a user deletes their rows here.
enum FriendsSchema {
    static let migrations: [Migration] = [
        Migration(name: "200 create friendRequest") { db in
            try db.create(table: "friendRequest") { t in
                t.primaryKey("id", .text)
                t.column("fromUserId", .text).notNull().references("user", onDelete: .cascade)
                t.column("toUserId", .text).notNull().references("user", onDelete: .cascade).indexed()
                t.column("createdAt", .datetime).notNull()
                t.uniqueKey(["fromUserId", "toUserId"])
                t.check(sql: "fromUserId <> toUserId")
            }
        },
        Migration(name: "201 create friendship") { db in
            // One row per direction, so that "the friends of X" is a plain lookup by userId.
            try db.create(table: "friendship") { t in
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                t.column("friendId", .text).notNull().references("user", onDelete: .cascade).indexed()
                t.column("since", .datetime).notNull()
                t.primaryKey(["userId", "friendId"])
                t.check(sql: "userId <> friendId")
            }
        },
        Migration(name: "202 create block") { db in
            try db.create(table: "block") { t in
                t.column("blockerId", .text).notNull().references("user", onDelete: .cascade)
                t.column("blockedId", .text).notNull().references("user", onDelete: .cascade).indexed()
                t.column("createdAt", .datetime).notNull()
                t.primaryKey(["blockerId", "blockedId"])
                t.check(sql: "blockerId <> blockedId")
            }
        },
    ]
}
