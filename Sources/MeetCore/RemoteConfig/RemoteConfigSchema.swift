import GRDB

/// Remote configuration versions and which one is active; promos and who dismissed them.
enum RemoteConfigSchema {
    static let migrations: [Migration] = [
        Migration(name: "601 remote configuration versions") { db in
            try db.execute(sql: """
                CREATE TABLE configVersion (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    document TEXT NOT NULL,
                    comment TEXT,
                    createdBy TEXT NOT NULL,
                    createdAt REAL NOT NULL
                );
                -- The active version is the newest activation not rolled back; the rows are
                -- the history of what was live when.
                CREATE TABLE configActivation (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    versionId INTEGER NOT NULL REFERENCES configVersion(id),
                    activatedBy TEXT NOT NULL,
                    activatedAt REAL NOT NULL,
                    rolledBackBy TEXT,
                    rolledBackAt REAL
                );
                """)
        },
        Migration(name: "602 promos") { db in
            try db.execute(sql: """
                CREATE TABLE promo (
                    id TEXT PRIMARY KEY,
                    title TEXT NOT NULL,
                    text TEXT NOT NULL,
                    imageMediaId TEXT,
                    deeplink TEXT,
                    meetingId TEXT REFERENCES meeting(id) ON DELETE SET NULL,
                    startsAt REAL NOT NULL,
                    endsAt REAL NOT NULL,
                    -- A condition as in configuration rules (JSON), or NULL for everyone.
                    audience TEXT,
                    priority INTEGER NOT NULL DEFAULT 0,
                    createdBy TEXT NOT NULL,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE promoView (
                    promoId TEXT NOT NULL REFERENCES promo(id) ON DELETE CASCADE,
                    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    shownAt REAL NOT NULL,
                    dismissedAt REAL,
                    PRIMARY KEY (promoId, userId)
                ) WITHOUT ROWID;
                """)
        },
    ]
}
