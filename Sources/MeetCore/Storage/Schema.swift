import GRDB

/// A named schema step. Names start with a number so that their order is plain to read.
struct Migration: Sendable {
    let name: String
    let apply: @Sendable (Database) throws -> Void
}

/// The schema as an ordered list of named migrations, one list per area of the app.
///
/// Number ranges keep areas apart: 001–099 accounts, 100–199 profiles and activities,
/// 200–299 places and friends, 300–399 meetings, 400–449 chat (rooms, messages, read state; 420–439 direct conversations),
/// 450–499 devices and notifications, 500–549 moderation (reports, audit, change log),
/// 550–579 media, 580–599 request and mail throttles, 600–649 remote configuration and promos.
/// An area's list is appended at the end of ``migrations`` when it first lands.
enum Schema {
    static let migrations: [Migration] = AccountsSchema.migrations + ActivitiesSchema.migrations
        + ProfilesSchema.migrations + FriendsSchema.migrations + EventsSchema.migrations + MeetingsSchema.migrations
        + ChatSchema.migrations + NotificationsSchema.migrations + ChangesSchema.migrations
        + ModerationSchema.migrations
        + RemoteConfigSchema.migrations
        + ThrottlesSchema.migrations + MediaSchema.migrations + DirectSchema.migrations

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name, migrate: migration.apply)
        }
        return migrator
    }
}
