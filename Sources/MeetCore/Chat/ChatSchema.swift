import GRDB

/// Chat rooms and their messages. A room is keyed by its own id (`meeting:{meetingId}` for a
/// meeting's room), so that a direct conversation between two users can be a room too.
enum ChatSchema {
    static let migrations: [Migration] = [
        Migration(name: "401 chat rooms and messages") { db in
            try db.execute(sql: """
                CREATE TABLE chatRoom (
                    id TEXT PRIMARY KEY,
                    meetingId TEXT REFERENCES meeting(id) ON DELETE CASCADE,
                    lastSeq INTEGER NOT NULL DEFAULT 0,
                    lastMessageAt REAL
                );
                CREATE TABLE chatMessage (
                    roomId TEXT NOT NULL REFERENCES chatRoom(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    id TEXT NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    senderId TEXT REFERENCES user(id) ON DELETE SET NULL,
                    text TEXT,
                    attachments TEXT NOT NULL DEFAULT '[]',
                    replyToSeq INTEGER,
                    -- For `edited` and `deleted` events: the seq they apply to.
                    refersToSeq INTEGER,
                    -- For `system` messages: {kind, arguments} as JSON.
                    system TEXT,
                    clientMessageId TEXT,
                    sentAt REAL NOT NULL,
                    editedAt REAL,
                    deletedAt REAL,
                    PRIMARY KEY (roomId, seq)
                ) WITHOUT ROWID;
                -- A repeated clientMessageId from the same sender in the same room stores nothing.
                CREATE UNIQUE INDEX chatMessage_client ON chatMessage (roomId, senderId, clientMessageId)
                    WHERE clientMessageId IS NOT NULL;
                """)
        },
        Migration(name: "402 chat rooms have a kind, members a read marker") { db in
            try db.execute(sql: """
                ALTER TABLE chatRoom ADD COLUMN kind TEXT NOT NULL DEFAULT 'meeting';
                -- The last seq a member has read in a room; unread is what came after it.
                CREATE TABLE chatReadMarker (
                    roomId TEXT NOT NULL,
                    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    lastReadSeq INTEGER NOT NULL,
                    PRIMARY KEY (roomId, userId)
                ) WITHOUT ROWID;
                """)
        },
        Migration(name: "403 the chat reads domain events from now on") { db in
            // System messages are for what happens from here; a database that already has a
            // history does not get a room full of old joins.
            try db.execute(sql: """
                INSERT OR IGNORE INTO eventConsumer (name, lastEventId) SELECT 'chat', COALESCE(MAX(id), 0) FROM event
                """)
        },
        Migration(name: "404 domain events are in the change log") { db in
            // By trigger, like meeting rows: an event recorded by any process (the admin CLI)
            // reaches the server's ChangeTail, which wakes the chat's event reader
            // (``ChatService/follow(_:)``) instead of a poll of the event table.
            let now = "(julianday('now') - 2440587.5) * 86400.0"
            try db.execute(sql: """
                CREATE TRIGGER event_logInsert AFTER INSERT ON event BEGIN
                    INSERT INTO changeLog (topic, subject, createdAt) VALUES ('domainEvent', NEW.id, \(now));
                END;
                """)
        },
        Migration(name: "405 writes that could end a room grant are in the change log") { db in
            // ``RoomGrants`` remembers which rooms a token may use until one of these commits,
            // from any process, ends a token, a user or a membership (writes to `meeting` are
            // logged since migration 500). By trigger, so that no code path can forget it.
            let now = "(julianday('now') - 2440587.5) * 86400.0"
            func logged(_ subject: String) -> String {
                "INSERT INTO changeLog (topic, subject, createdAt) VALUES ('grant', \(subject), \(now));"
            }
            try db.execute(sql: """
                CREATE TRIGGER accessToken_grantDelete AFTER DELETE ON accessToken BEGIN \(logged("OLD.userId")) END;
                CREATE TRIGGER accessToken_grantUpdate AFTER UPDATE OF tokenHash, userId, expiresAt ON accessToken BEGIN
                    \(logged("OLD.userId"))
                END;
                CREATE TRIGGER user_grantDelete AFTER DELETE ON user BEGIN \(logged("OLD.id")) END;
                CREATE TRIGGER user_grantUpdate AFTER UPDATE OF id, banned ON user BEGIN \(logged("OLD.id")) END;
                CREATE TRIGGER meetingMember_grantDelete AFTER DELETE ON meetingMember BEGIN \(logged("OLD.userId")) END;
                CREATE TRIGGER meetingMember_grantUpdate AFTER UPDATE ON meetingMember BEGIN \(logged("OLD.userId")) END;
                """)
        },
        Migration(name: "406 a room grant ends only when a value it rests on changes") { db in
            // 405's UPDATE OF triggers fired whenever a column was merely assigned (a profile
            // saved as a whole record rewrites `banned` unchanged), and ``RoomGrants`` followed
            // every `meeting` change (a join bumps the member count) for the organizer and the
            // meeting's deletion: each dropped every grant of the server. Now a change is logged
            // only when a value a grant rests on differs, with the organizer's change and the
            // meeting's deletion logged as grant changes too.
            let now = "(julianday('now') - 2440587.5) * 86400.0"
            func logged(_ subject: String) -> String {
                "INSERT INTO changeLog (topic, subject, createdAt) VALUES ('grant', \(subject), \(now));"
            }
            func differs(_ columns: String...) -> String {
                columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
            }
            try db.execute(sql: """
                DROP TRIGGER accessToken_grantUpdate;
                DROP TRIGGER user_grantUpdate;
                DROP TRIGGER meetingMember_grantUpdate;
                CREATE TRIGGER accessToken_grantUpdate AFTER UPDATE OF tokenHash, userId, expiresAt ON accessToken
                    WHEN \(differs("tokenHash", "userId", "expiresAt")) BEGIN \(logged("OLD.userId")) END;
                CREATE TRIGGER user_grantUpdate AFTER UPDATE OF id, banned ON user
                    WHEN \(differs("id", "banned")) BEGIN \(logged("OLD.id")) END;
                CREATE TRIGGER meetingMember_grantUpdate AFTER UPDATE ON meetingMember
                    WHEN \(differs("meetingId", "userId", "role")) BEGIN \(logged("OLD.userId")) END;
                CREATE TRIGGER meeting_grantUpdate AFTER UPDATE OF id, organizerId ON meeting
                    WHEN \(differs("id", "organizerId")) BEGIN \(logged("OLD.organizerId")) END;
                CREATE TRIGGER meeting_grantDelete AFTER DELETE ON meeting BEGIN \(logged("OLD.organizerId")) END;
                """)
        },
        Migration(name: "407 a deleted message's edits lose their text too") { db in
            // A deletion blanks the `edited` events that refer to the message (ChatChange),
            // found by this index, which only events carry. Events stored before keep no text
            // of a message deleted since.
            try db.execute(sql: """
                CREATE INDEX chatMessage_refersTo ON chatMessage (roomId, refersToSeq) WHERE refersToSeq IS NOT NULL;
                UPDATE chatMessage SET text = NULL
                WHERE refersToSeq IS NOT NULL AND type = 'edited' AND text IS NOT NULL AND EXISTS (
                    SELECT 1 FROM chatMessage AS target
                    WHERE target.roomId = chatMessage.roomId AND target.seq = chatMessage.refersToSeq AND target.deletedAt IS NOT NULL);
                """)
        },
    ]
}
