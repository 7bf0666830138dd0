import Foundation
import GRDB

/// The activity catalog (migrations 100–109): seeded names in English and Ukrainian, and the
/// ones users propose.
enum ActivitiesSchema {
    static let migrations: [Migration] = [
        Migration(name: "100 create activity") { db in
            try db.create(table: "activity") { t in
                t.primaryKey("id", .text)
                t.column("nameEn", .text)
                t.column("nameUk", .text)
                t.column("proposedBy", .text).references("user", onDelete: .setNull)
                t.column("createdAt", .datetime).notNull()
                t.check(sql: "nameEn IS NOT NULL OR nameUk IS NOT NULL")
            }
        },
        Migration(name: "101 seed activity catalog") { db in
            let seededAt = Date()
            for entry in try ActivityCatalog.entries() {
                try Activity(id: entry.id, nameEn: entry.english, nameUk: entry.ukrainian, proposedBy: nil, createdAt: seededAt)
                    .insert(db)
            }
        },
    ]
}
