import GRDB

/// Direct conversations and presence (issue 11, migrations 420–439): which two users a `direct:` room joins,
/// and each user's direct inbox, the one order over all their conversations that a resuming
/// `/user/queue/direct` subscriber asks from (``DirectInbox``).
enum DirectSchema {
    static let migrations: [Migration] = [
        Migration(name: "420 direct conversations and inboxes") { db in
            try db.execute(sql: """
                -- userA < userB: one row per pair, whoever wrote first.
                CREATE TABLE directConversation (
                    roomId TEXT PRIMARY KEY REFERENCES chatRoom(id) ON DELETE CASCADE,
                    userA TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    userB TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    createdAt REAL NOT NULL,
                    UNIQUE (userA, userB),
                    CHECK (userA < userB)
                );
                CREATE INDEX directConversation_userB ON directConversation (userB);
                -- Every direct message, once per member, numbered per user with no gap.
                CREATE TABLE directInbox (
                    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    roomId TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (userId, position)
                ) WITHOUT ROWID;
                """)
        },
        Migration(name: "421 presence settings and last seen") { db in
            try db.execute(sql: """
                -- Only what presence keeps on disk: whether one hides it, when one was last seen
                -- (written in batches by the server, never per connect).
                CREATE TABLE presence (
                    userId TEXT PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    hidden INTEGER NOT NULL DEFAULT 0,
                    lastSeenAt REAL
                ) WITHOUT ROWID;
                """)
        },
    ]
}
