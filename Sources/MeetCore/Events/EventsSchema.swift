import GRDB

/// The domain-event log: one row per change other parts of the app react to, and one
/// read position per consumer (chat, push, mail) so that each sees every event once.
enum EventsSchema {
    static let migrations: [Migration] = [
        Migration(name: "300 domain events") { db in
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("payload", .jsonText).notNull()
                t.column("createdAt", .double).notNull()
            }
            // A consumer's marker: the id of the last event it has handled.
            try db.create(table: "eventConsumer") { t in
                t.primaryKey("name", .text)
                t.column("lastEventId", .integer).notNull().defaults(to: 0)
            }
        },
    ]
}
