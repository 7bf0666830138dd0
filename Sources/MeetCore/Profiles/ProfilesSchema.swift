import GRDB

/// Tables of profiles (migrations 110–199): what users tell about themselves, the activities
/// they like, where they are, and the index that finds them by name.
enum ProfilesSchema {
    static let migrations: [Migration] = [
        Migration(name: "110 create profile") { db in
            // A user without a row here has an empty profile.
            try db.create(table: "profile") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("bio", .text).notNull().defaults(to: "")
                t.column("birthDate", .text)
                t.column("city", .text)
                t.column("photoId", .text)
                t.column("languages", .jsonText).notNull().defaults(to: "[]")
                t.column("updatedAt", .datetime).notNull()
            }
        },
        Migration(name: "111 create profileActivity") { db in
            try db.create(table: "profileActivity") { t in
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                t.column("activityId", .text).notNull().references("activity", onDelete: .cascade).indexed()
                t.primaryKey(["userId", "activityId"])
            }
        },
        Migration(name: "112 create userLocation with its R*Tree", apply: createUserLocation),
        Migration(name: "113 index user names for search", apply: createUserNameSearch),
        Migration(name: "114 order users by name") { db in
            // People search pages through users in (displayName, id) order from a cursor.
            try db.create(index: "user_displayNameOrder", on: "user", columns: ["displayName", "id"])
        },
    ]

    /// Positions are kept in `userLocation`; only shared ones are copied into the R*Tree
    /// `userLocationIndex`, by triggers, so a nearby search never sees a hidden position.
    /// The R*Tree needs integer ids, hence the integer key beside `userId`.
    static func createUserLocation(_ db: Database) throws {
        try db.create(table: "userLocation") { t in
            t.primaryKey("id", .integer)
            t.column("userId", .text).notNull().unique().references("user", onDelete: .cascade)
            t.column("lat", .double).notNull()
            t.column("lon", .double).notNull()
            t.column("shared", .boolean).notNull()
            t.column("updatedAt", .datetime).notNull()
        }
        try db.execute(sql: """
            CREATE VIRTUAL TABLE userLocationIndex USING rtree(id, minLat, maxLat, minLon, maxLon);
            CREATE TRIGGER userLocation_shareOnInsert AFTER INSERT ON userLocation WHEN new.shared BEGIN
                INSERT INTO userLocationIndex VALUES (new.id, new.lat, new.lat, new.lon, new.lon);
            END;
            CREATE TRIGGER userLocation_shareOnUpdate AFTER UPDATE ON userLocation BEGIN
                DELETE FROM userLocationIndex WHERE id = old.id;
                INSERT INTO userLocationIndex SELECT new.id, new.lat, new.lat, new.lon, new.lon WHERE new.shared;
            END;
            CREATE TRIGGER userLocation_forgetOnDelete AFTER DELETE ON userLocation BEGIN
                DELETE FROM userLocationIndex WHERE id = old.id;
            END;
            """)
    }

    /// A full-text index of display names, kept by triggers on `user`: prefix search in any
    /// script, case and accents folded ("оле" finds "Олена", "zoe" finds "Zoë").
    static func createUserNameSearch(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE userNameSearch USING fts5(
                userId UNINDEXED, displayName, tokenize = "unicode61 remove_diacritics 2");
            INSERT INTO userNameSearch (userId, displayName) SELECT id, displayName FROM user;
            CREATE TRIGGER user_indexNameOnInsert AFTER INSERT ON user BEGIN
                INSERT INTO userNameSearch (userId, displayName) VALUES (new.id, new.displayName);
            END;
            CREATE TRIGGER user_indexNameOnUpdate AFTER UPDATE OF displayName ON user BEGIN
                UPDATE userNameSearch SET displayName = new.displayName WHERE userId = old.id;
            END;
            CREATE TRIGGER user_forgetNameOnDelete AFTER DELETE ON user BEGIN
                DELETE FROM userNameSearch WHERE userId = old.id;
            END;
            """)
    }
}
