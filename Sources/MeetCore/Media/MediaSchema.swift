import GRDB

/// Uploaded images (migrations 550–579). A row is one upload by one user; the file it points
/// to is named by the hash of its cleaned content, so that two uploads of the same photo share
/// one file on disk.
enum MediaSchema {
    static let migrations: [Migration] = [
        Migration(name: "550 create media") { db in
            try db.execute(sql: """
                CREATE TABLE media (
                    id TEXT PRIMARY KEY,
                    -- Deleting a user deletes their uploads; the sweep then removes the files.
                    uploaderId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    contentHash TEXT NOT NULL,
                    contentType TEXT NOT NULL,
                    byteCount INTEGER NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    -- [{maxSide, width, height, contentType, byteCount}] as JSON.
                    thumbnails TEXT NOT NULL DEFAULT '[]',
                    createdAt REAL NOT NULL
                );
                CREATE INDEX media_uploader ON media (uploaderId, createdAt);
                CREATE INDEX media_hash ON media (contentHash);
                CREATE INDEX media_created ON media (createdAt);
                -- Hashes whose last upload may be gone: the sweep deletes their files when no row
                -- names them any more (a row deleted by any means, a cascade included, lands here).
                CREATE TABLE mediaOrphan (contentHash TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TRIGGER media_orphanOnDelete AFTER DELETE ON media BEGIN
                    INSERT OR IGNORE INTO mediaOrphan (contentHash) VALUES (old.contentHash);
                END;
                -- What refers to media, looked up by media id for access checks and the sweep.
                CREATE INDEX profile_photo ON profile (photoId) WHERE photoId IS NOT NULL;
                CREATE INDEX meeting_photo ON meeting (photoId) WHERE photoId IS NOT NULL;
                CREATE INDEX chatMessage_withAttachments ON chatMessage (roomId) WHERE attachments <> '[]';
                """)
        },
    ]
}
