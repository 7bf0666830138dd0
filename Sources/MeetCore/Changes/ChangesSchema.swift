import GRDB

/// The change log (`docs/moderation.md`): one row per write that some process's in-memory
/// state must follow, in commit order, whoever made it.
enum ChangesSchema {
    static let migrations: [Migration] = [
        Migration(name: "500 change log, fed by meeting writes from any process") { db in
            // AUTOINCREMENT: an id is never reused, even after pruning, so a reader's
            // position always means the same thing.
            try db.execute(sql: """
                CREATE TABLE changeLog (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    topic TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    detail TEXT,
                    createdAt REAL NOT NULL
                );
                CREATE INDEX changeLog_createdAt ON changeLog(createdAt);
                """)
            // Triggers, not application code, so that a write from any process (the admin
            // CLI, a future tool, the sqlite3 shell) is logged in its own transaction.
            let now = "(julianday('now') - 2440587.5) * 86400.0"
            try db.execute(sql: """
                CREATE TRIGGER meeting_logInsert AFTER INSERT ON meeting BEGIN
                    INSERT INTO changeLog (topic, subject, createdAt) VALUES ('meeting', NEW.number, \(now));
                END;
                CREATE TRIGGER meeting_logUpdate AFTER UPDATE ON meeting BEGIN
                    INSERT INTO changeLog (topic, subject, createdAt) VALUES ('meeting', NEW.number, \(now));
                END;
                CREATE TRIGGER meeting_logDelete AFTER DELETE ON meeting BEGIN
                    INSERT INTO changeLog (topic, subject, createdAt) VALUES ('meeting', OLD.number, \(now));
                END;
                """)
        },
    ]
}
