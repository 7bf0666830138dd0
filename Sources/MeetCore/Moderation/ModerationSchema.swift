import GRDB

/// Tables of moderation (migrations 500–549, the change log's 500 included): roles and bans
/// on `user`, the audit log, reports.
enum ModerationSchema {
    static let migrations: [Migration] = [
        Migration(name: "501 moderator role, ban reasons, the audit log") { db in
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator'));
                ALTER TABLE user ADD COLUMN banReason TEXT;
                CREATE TABLE auditLog (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    actor TEXT NOT NULL,
                    action TEXT NOT NULL,
                    targetType TEXT NOT NULL,
                    targetId TEXT NOT NULL,
                    reason TEXT,
                    detail TEXT,
                    createdAt REAL NOT NULL
                );
                CREATE INDEX auditLog_target ON auditLog(targetType, targetId);
                -- Written once, never edited: the database itself refuses, whoever asks.
                CREATE TRIGGER auditLog_neverUpdated BEFORE UPDATE ON auditLog BEGIN
                    SELECT RAISE(ABORT, 'the audit log is never edited');
                END;
                CREATE TRIGGER auditLog_neverDeleted BEFORE DELETE ON auditLog BEGIN
                    SELECT RAISE(ABORT, 'the audit log is never edited');
                END;
                """)
        },
    ]
}
