import Foundation
import GRDB

/// The one SQLite file behind the service: a WAL-mode `DatabasePool` with foreign keys on,
/// migrated to the latest schema when opened.
public final class AppDatabase: Sendable {
    /// Readers run concurrently; writes are serialized by SQLite itself.
    public let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Concurrent writers wait for each other instead of failing with SQLITE_BUSY.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL with NORMAL sync keeps committed data across a process crash;
            // only a power loss may drop the last transactions.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
    }
}
