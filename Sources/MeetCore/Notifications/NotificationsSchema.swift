import GRDB

/// Tables of the devices and notifications area (migrations 450–499): the phones that
/// receive pushes, the in-app inbox and the push outbox the dispatcher drains.
enum NotificationsSchema {
    static let migrations: [Migration] = [
        Migration(name: "450 create device") { db in
            try db.create(table: "device") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("pushService", .text).notNull().check { ["apns", "fcm"].contains($0) }
                t.column("token", .text).notNull()
                t.column("locale", .text).notNull()
                t.column("appVersion", .text)
                t.column("environment", .text).notNull().check { ["sandbox", "production"].contains($0) }
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                // Set when the push service refused the token for good; no push goes to it then.
                t.column("disabledAt", .datetime)
                t.column("disabledReason", .text)
                // A token belongs to one phone, hence to one user at a time.
                t.uniqueKey(["pushService", "token"])
            }
        },
    ]
}
