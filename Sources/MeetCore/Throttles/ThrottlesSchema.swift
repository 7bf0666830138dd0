import GRDB

/// Tables of the throttles area (migrations 580–599): what must still be limited after a
/// restart.
enum ThrottlesSchema {
    static let migrations: [Migration] = [
        // One row per mail sent, under each key that limits it (`to:<address>`,
        // `from:<client address>`); rows older than the window are swept as new ones come.
        Migration(name: "580 create mailSend") { db in
            try db.create(table: "mailSend") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("key", .text).notNull()
                t.column("sentAt", .datetime).notNull()
            }
            try db.create(index: "mailSend_key_sentAt", on: "mailSend", columns: ["key", "sentAt"])
            try db.create(index: "mailSend_sentAt", on: "mailSend", columns: ["sentAt"])
        },
    ]
}
