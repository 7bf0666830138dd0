import GRDB

/// Meetings, their members, activities and invitations, and what the feed keeps in the
/// database (its time index, its saved cursors).
enum MeetingsSchema {
    static let migrations: [Migration] = [
        Migration(name: "301 meetings", apply: createMeetings),
        Migration(name: "302 meeting members, activities, invitations", apply: createMembership),
        Migration(name: "303 meeting spatial index", apply: createSpatialIndex),
        Migration(name: "304 activity and member changes touch their meeting", apply: touchMeetingOnChanges),
        Migration(name: "305 feed cursors kept over a restart") { db in
            // Filled on a graceful stop, emptied on the next start (FeedCursorStore).
            try db.execute(sql: """
                CREATE TABLE feedSnapshot (
                    token TEXT PRIMARY KEY,
                    viewerId TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    numbers BLOB NOT NULL,
                    distances BLOB NOT NULL
                )
                """)
        },
        Migration(name: "306 the feed finds meetings in memory: no R*Tree, no online index") { db in
            // FeedIndex holds its own grid and online list; these only cost every write.
            try db.execute(sql: """
                DROP TRIGGER meetingPoint_insert;
                DROP TRIGGER meetingPoint_update;
                DROP TRIGGER meetingPoint_delete;
                DROP TABLE meetingPoint;
                DROP INDEX meeting_feed_online;
                """)
        },
        Migration(name: "307 feed cursors saved as 32-bit offsets with their point") { db in
            // Distances are measured again from the point (FeedCursorStore); rows saved in
            // the old shape lack it, so they go: their clients start again from page one.
            try db.execute(sql: """
                DROP TABLE feedSnapshot;
                CREATE TABLE feedSnapshot (
                    token TEXT PRIMARY KEY,
                    viewerId TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    lat REAL,
                    lon REAL,
                    base INTEGER NOT NULL,
                    offsets BLOB NOT NULL
                )
                """)
        },
        Migration(name: "308 invitations do not outlive a block") { db in
            // Blocks made before MeetingBlocks existed left such invitations pending.
            try db.execute(sql: """
                DELETE FROM invitation
                WHERE status = 'pending' AND EXISTS (
                    SELECT 1 FROM block, meeting WHERE meeting.id = invitation.meetingId
                      AND ((block.blockerId = invitation.inviteeId AND block.blockedId IN (invitation.inviterId, meeting.organizerId))
                        OR (block.blockedId = invitation.inviteeId AND block.blockerId IN (invitation.inviterId, meeting.organizerId))))
                """)
        },
        Migration(name: "309 feed cursors keep the request to rank deeper") { db in
            // A first page ranks five pages; a saved list with more to come keeps its request,
            // as JSON, for the later page that reaches its end (FeedSnapshots.Snapshot.deeper).
            try db.execute(sql: "ALTER TABLE feedSnapshot ADD COLUMN deeper TEXT")
        },
        Migration(name: "310 writes that change a feed's viewer are in the change log") { db in
            // ``FeedViewers`` remembers each viewer's blocks, friends and activities until one of
            // these commits, from any process, changes them (subject: each user concerned). By
            // trigger, so that no code path can forget it; cascades from a user's or an
            // activity's deletion fire them too. On a fresh database this runs before migration
            // 500 creates `changeLog`: SQLite resolves a trigger's body when it fires, and no
            // migration between writes these tables (as for 404 and 405).
            let now = "(julianday('now') - 2440587.5) * 86400.0"
            func logged(_ subjects: String...) -> String {
                subjects.map { "INSERT INTO changeLog (topic, subject, createdAt) VALUES ('feedViewer', \($0), \(now));" }
                    .joined(separator: " ")
            }
            try db.execute(sql: """
                CREATE TRIGGER block_feedViewerInsert AFTER INSERT ON block BEGIN \(logged("NEW.blockerId", "NEW.blockedId")) END;
                CREATE TRIGGER block_feedViewerDelete AFTER DELETE ON block BEGIN \(logged("OLD.blockerId", "OLD.blockedId")) END;
                CREATE TRIGGER block_feedViewerUpdate AFTER UPDATE ON block BEGIN
                    \(logged("OLD.blockerId", "OLD.blockedId", "NEW.blockerId", "NEW.blockedId"))
                END;
                CREATE TRIGGER friendship_feedViewerInsert AFTER INSERT ON friendship BEGIN \(logged("NEW.userId", "NEW.friendId")) END;
                CREATE TRIGGER friendship_feedViewerDelete AFTER DELETE ON friendship BEGIN \(logged("OLD.userId", "OLD.friendId")) END;
                CREATE TRIGGER friendship_feedViewerUpdate AFTER UPDATE ON friendship BEGIN
                    \(logged("OLD.userId", "OLD.friendId", "NEW.userId", "NEW.friendId"))
                END;
                CREATE TRIGGER profileActivity_feedViewerInsert AFTER INSERT ON profileActivity BEGIN \(logged("NEW.userId")) END;
                CREATE TRIGGER profileActivity_feedViewerDelete AFTER DELETE ON profileActivity BEGIN \(logged("OLD.userId")) END;
                CREATE TRIGGER profileActivity_feedViewerUpdate AFTER UPDATE ON profileActivity BEGIN
                    \(logged("OLD.userId", "NEW.userId"))
                END;
                """)
        },
    ]

    private static func createMeetings(_ db: Database) throws {
        // `number` is a stable integer key (the feed index and its cursors hold it); `id` is
        // what clients see.
        try db.execute(sql: """
            CREATE TABLE meeting (
                number INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                organizerId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                title TEXT NOT NULL,
                description TEXT NOT NULL,
                visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
                startsAt REAL NOT NULL,
                endsAt REAL CHECK (endsAt IS NULL OR endsAt > startsAt),
                online INTEGER NOT NULL DEFAULT 0,
                placeName TEXT, placeAddress TEXT, placeCity TEXT, placeCountry TEXT,
                lat REAL CHECK (lat BETWEEN -90 AND 90),
                lon REAL CHECK (lon BETWEEN -180 AND 180),
                timeZone TEXT NOT NULL,
                priceMinor INTEGER CHECK (priceMinor > 0),
                currency TEXT CHECK ((priceMinor IS NULL) = (currency IS NULL)),
                maxParticipants INTEGER CHECK (maxParticipants > 0),
                memberCount INTEGER NOT NULL DEFAULT 0
                    CHECK (maxParticipants IS NULL OR memberCount <= maxParticipants),
                membersMayInvite INTEGER NOT NULL DEFAULT 0,
                photoId TEXT,
                cancelledAt REAL,
                createdAt REAL NOT NULL,
                updatedAt REAL NOT NULL,
                revision INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX meeting_organizer ON meeting(organizerId);
            -- The feed without a point: upcoming public meetings in time order.
            CREATE INDEX meeting_feed_time ON meeting(startsAt)
                WHERE visibility = 'public' AND cancelledAt IS NULL;
            -- Online and global meetings join every nearby feed.
            CREATE INDEX meeting_feed_online ON meeting(startsAt)
                WHERE online = 1 AND visibility = 'public' AND cancelledAt IS NULL;
            """)
    }

    private static func createMembership(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE meetingMember (
                meetingId TEXT NOT NULL REFERENCES meeting(id) ON DELETE CASCADE,
                userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN ('organizer', 'member')),
                joinedAt REAL NOT NULL,
                PRIMARY KEY (meetingId, userId)
            ) WITHOUT ROWID;
            CREATE INDEX meetingMember_user ON meetingMember(userId, meetingId);

            -- The count the capacity check and the feed read; kept by the database itself,
            -- and the CHECK on meeting refuses any insert that would overflow it.
            CREATE TRIGGER meetingMember_joined AFTER INSERT ON meetingMember BEGIN
                UPDATE meeting SET memberCount = memberCount + 1 WHERE id = NEW.meetingId;
            END;
            CREATE TRIGGER meetingMember_left AFTER DELETE ON meetingMember BEGIN
                UPDATE meeting SET memberCount = memberCount - 1 WHERE id = OLD.meetingId;
            END;

            CREATE TABLE meetingActivity (
                meetingId TEXT NOT NULL REFERENCES meeting(id) ON DELETE CASCADE,
                activityId TEXT NOT NULL,
                PRIMARY KEY (meetingId, activityId)
            ) WITHOUT ROWID;
            CREATE INDEX meetingActivity_activity ON meetingActivity(activityId, meetingId);

            CREATE TABLE invitation (
                id TEXT PRIMARY KEY,
                meetingId TEXT NOT NULL REFERENCES meeting(id) ON DELETE CASCADE,
                inviteeId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                inviterId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined')),
                createdAt REAL NOT NULL,
                answeredAt REAL,
                UNIQUE (meetingId, inviteeId)
            );
            CREATE INDEX invitation_invitee ON invitation(inviteeId, status);
            """)
    }

    /// Public, scheduled, located meetings in an R*Tree, kept in step by triggers, so the
    /// nearby feed read a bounding box instead of every meeting (until 306 dropped it).
    private static func createSpatialIndex(_ db: Database) throws {
        let listed = "NEW.visibility = 'public' AND NEW.cancelledAt IS NULL AND NEW.online = 0 AND NEW.lat IS NOT NULL"
        try db.execute(sql: """
            CREATE VIRTUAL TABLE meetingPoint USING rtree(number, minLat, maxLat, minLon, maxLon);
            CREATE TRIGGER meetingPoint_insert AFTER INSERT ON meeting WHEN \(listed) BEGIN
                INSERT INTO meetingPoint VALUES (NEW.number, NEW.lat, NEW.lat, NEW.lon, NEW.lon);
            END;
            CREATE TRIGGER meetingPoint_update
            AFTER UPDATE OF visibility, cancelledAt, online, lat, lon ON meeting BEGIN
                DELETE FROM meetingPoint WHERE number = OLD.number;
                INSERT INTO meetingPoint SELECT NEW.number, NEW.lat, NEW.lat, NEW.lon, NEW.lon WHERE \(listed);
            END;
            CREATE TRIGGER meetingPoint_delete AFTER DELETE ON meeting BEGIN
                DELETE FROM meetingPoint WHERE number = OLD.number;
            END;
            """)
    }

    /// The feed index re-reads the `meeting` rows a transaction touched, and SQLite reports
    /// no row changes of `WITHOUT ROWID` tables: a change of a meeting's activities or
    /// members must touch the meeting's row. Joins and leaves already do (`memberCount`). The
    /// chat's `ChatPosters` relies on the same touches to forget who may post to a room.
    private static func touchMeetingOnChanges(_ db: Database) throws {
        let touch = "UPDATE meeting SET updatedAt = updatedAt WHERE id IN"
        try db.execute(sql: """
            CREATE TRIGGER meetingActivity_added AFTER INSERT ON meetingActivity BEGIN
                \(touch) (NEW.meetingId);
            END;
            CREATE TRIGGER meetingActivity_removed AFTER DELETE ON meetingActivity BEGIN
                \(touch) (OLD.meetingId);
            END;
            CREATE TRIGGER meetingActivity_changed AFTER UPDATE ON meetingActivity BEGIN
                \(touch) (OLD.meetingId, NEW.meetingId);
            END;
            CREATE TRIGGER meetingMember_changed AFTER UPDATE OF meetingId, userId ON meetingMember BEGIN
                \(touch) (OLD.meetingId, NEW.meetingId);
            END;
            """)
    }
}
