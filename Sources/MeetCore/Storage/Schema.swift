import GRDB

/// A named schema step. Names start with a number so that their order is plain to read.
struct Migration: Sendable {
    let name: String
    let apply: @Sendable (Database) throws -> Void
}

/// The schema as an ordered list of named migrations, one list per area of the app.
///
/// Number ranges keep areas apart: 001–099 accounts, 100–199 profiles and activities,
/// 200–299 places and friends, 300–399 meetings, 400– chat and notifications.
enum Schema {
    static let migrations: [Migration] = AccountsSchema.migrations + ActivitiesSchema.migrations
        + ProfilesSchema.migrations + FriendsSchema.migrations + EventsSchema.migrations + MeetingsSchema.migrations

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name, migrate: migration.apply)
        }
        return migrator
    }
}
