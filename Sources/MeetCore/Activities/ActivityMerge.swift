import GRDB

/// Folds one activity into another (two names users proposed for the same thing): every
/// profile and meeting that used the old one uses the target instead, once, and the old one
/// leaves the catalog. Runs inside the caller's transaction, so it happens entirely or not at all.
enum ActivityMerge {
    /// How many uses moved; a profile or meeting that had both counts under `duplicates`.
    struct Moved: Equatable, Sendable {
        var profiles = 0
        var meetings = 0
        /// Uses dropped because their profile or meeting had the target already.
        var duplicates = 0
    }

    /// Moves `sourceId`'s uses to `targetId`, gives the target the source's name in a language
    /// it has none in, and deletes the source. Both must exist and differ (the caller checks).
    static func merge(_ sourceId: String, into targetId: String, in db: Database) throws -> Moved {
        var moved = Moved()
        // Every table of `ActivityService.usageTables`.
        let uses: [(table: String, count: WritableKeyPath<Moved, Int>)] = [("profileActivity", \.profiles), ("meetingActivity", \.meetings)]
        for (table, count) in uses {
            // OR IGNORE skips a row whose owner already has the target (the primary key would
            // repeat); the DELETE then drops those leftovers.
            try db.execute(sql: "UPDATE OR IGNORE \(table) SET activityId = ? WHERE activityId = ?", arguments: [targetId, sourceId])
            moved[keyPath: count] = db.changesCount
            try db.execute(sql: "DELETE FROM \(table) WHERE activityId = ?", arguments: [sourceId])
            moved.duplicates += db.changesCount
        }
        try db.execute(sql: """
            UPDATE activity SET
                nameEn = coalesce(nameEn, (SELECT nameEn FROM activity WHERE id = :source)),
                nameUk = coalesce(nameUk, (SELECT nameUk FROM activity WHERE id = :source))
            WHERE id = :target
            """, arguments: ["source": sourceId, "target": targetId])
        try db.execute(sql: "DELETE FROM activity WHERE id = ?", arguments: [sourceId])
        return moved
    }
}
