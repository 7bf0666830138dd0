import GRDB

/// Tables of moderation (migrations 500–549, the change log's 500 included): roles and bans
/// on `user`, the audit log, reports, hidden activities.
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
        Migration(name: "502 reports") { db in
            try db.execute(sql: """
                CREATE TABLE report (
                    id TEXT PRIMARY KEY,
                    reporterId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    targetType TEXT NOT NULL CHECK (targetType IN ('user', 'meeting', 'message')),
                    targetId TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    details TEXT,
                    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
                    resolution TEXT CHECK (resolution IN ('dismiss', 'warn', 'redact', 'ban')),
                    resolvedBy TEXT,
                    resolvedAt REAL,
                    createdAt REAL NOT NULL
                );
                -- One open report per reporter and target, enforced where concurrent posts meet.
                CREATE UNIQUE INDEX report_openOnce ON report(reporterId, targetType, targetId) WHERE status = 'open';
                CREATE INDEX report_reporter ON report(reporterId, createdAt);
                CREATE INDEX report_target ON report(targetType, targetId);
                CREATE INDEX report_open ON report(createdAt) WHERE status = 'open';
                """)
        },
        Migration(name: "503 temporary bans") { db in
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN bannedUntil DATETIME;
                CREATE INDEX user_banLapse ON user(bannedUntil) WHERE bannedUntil IS NOT NULL;
                """)
        },
        Migration(name: "504 hidden activities") { db in
            // Set by moderators: the activity keeps its existing uses but is no longer offered
            // or accepted for new ones.
            try db.execute(sql: "ALTER TABLE activity ADD COLUMN hiddenAt DATETIME")
        },
    ]
}
