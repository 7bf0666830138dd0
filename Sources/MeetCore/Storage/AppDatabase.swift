import Foundation
import GRDB

/// The one SQLite file behind the service: a WAL-mode `DatabasePool` with foreign keys on,
/// migrated to the latest schema when opened.
public final class AppDatabase: Sendable {
    /// The database's file name inside the data directory.
    public static let fileName = "meetupd.sqlite"

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
            // Reads map the file instead of copying pages through read(2): the feed reads
            // thousands of scattered meeting rows per query, and the copies were a fifth of its CPU.
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
    }

    /// Opens the database in a data directory, creating the directory if needed.
    public convenience init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: dataDirectory + "/" + Self.fileName)
    }

    /// Names of the migrations applied so far, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Schema.migrator.appliedMigrations(db) }
    }
}
