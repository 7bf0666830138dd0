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
    ]
}
