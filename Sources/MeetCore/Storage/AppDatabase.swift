import Foundation
import GRDB

/// The one SQLite file behind the service, migrated to the latest schema when opened.
///
/// Only MeetCore writes: its services are the intention-revealing methods other modules call,
/// so every write goes through code that keeps the domain's rules (and the feed index, which
/// observes this writer, sees it). Other modules get ``reader`` for plain looks.
public final class AppDatabase: Sendable {
    /// The database's file name inside the data directory.
    public static let fileName = "meetupd.sqlite"

    /// Every write of the service; kept inside MeetCore (see the type's comment).
    let writer: any DatabaseWriter

    /// Reads run concurrently with writes (WAL) and cannot change anything.
    public var reader: any DatabaseReader { writer }

    /// Where ``quickRead(_:)`` runs without a hop (nil for a database that is not a file).
    private let inlineReaders: InlineReaders?

    /// Wraps `writer` (normally from ``openPool(path:)``) and applies pending migrations.
    public convenience init(_ writer: any DatabaseWriter) throws {
        try self.init(writer, inlineReadersAt: nil)
    }

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public convenience init(path: String) throws {
        try self.init(Self.openPool(path: path), inlineReadersAt: path)
    }

    private init(_ writer: any DatabaseWriter, inlineReadersAt path: String?) throws {
        self.writer = writer
        try Schema.migrator.migrate(writer)
        // One per core: as many reads as can run at once on the event loops (where a request's
        // reads run) or on Swift's cooperative threads; a read finding all busy takes the pool.
        inlineReaders = try path.map {
            try InlineReaders(path: $0, count: max(2, ProcessInfo.processInfo.activeProcessorCount), prepare: Self.prepare)
        }
    }

    /// Opens the database in a data directory, creating the directory if needed.
    public convenience init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: dataDirectory + "/" + Self.fileName)
    }

    /// A WAL-mode pool on the file at `path`, set up as the service needs it (foreign keys,
    /// waiting writers, memory-mapped reads). Tools that seed a file in bulk open it here and
    /// hand it to ``init(_:)``.
    public static func openPool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Concurrent writers wait for each other instead of failing with SQLITE_BUSY.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase(prepare)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // The writer keeps 32 MiB of pages (SQLite's default is 2 MiB): a chat commit touches a
        // leaf of the client-id index per sender and a leaf per room, and with a hundred rooms
        // the default cache re-read most of them from the log every batch.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -32768") }
        return pool
    }

    /// Sets up each connection to the file.
    private static func prepare(_ db: Database) throws {
        // WAL with NORMAL sync keeps committed data across a process crash;
        // only a power loss may drop the last transactions.
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
        // Reads map the file instead of copying pages through read(2): the feed reads
        // thousands of scattered meeting rows per query, and the copies were a fifth of its CPU.
        try db.execute(sql: "PRAGMA mmap_size = 1073741824")
    }

    /// Runs a short read, a few rows on a request's path, on the calling thread when one of
    /// the ``InlineReaders`` is idle, else through the pool like `reader.read`. Long reads
    /// (exports, scans) go through `reader`, so that they do not hold the caller's thread (for
    /// a request, its connection's event loop).
    public func quickRead<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let value = try inlineReaders?.read(body) { return value }
        return try await reader.read(body)
    }

    /// A short read on the calling thread that never waits for the pool's readers, for code
    /// that must read while holding a lock on an event loop (the relay's first subscriber to a
    /// room). A pool reader taken by an HTTP request goes back only when the request's task
    /// resumes on its event loop, so waiting for one there could wait for itself.
    public func readWithoutPool<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        guard let inlineReaders else { return try reader.read(body) }
        return try inlineReaders.readWaiting(body)
    }

    /// Names of the migrations applied so far, in order.
    public func appliedMigrations() throws -> [String] {
        try reader.read { db in try Schema.migrator.appliedMigrations(db) }
    }

    /// Calls `onChange` on the writer after each committed transaction of this process that
    /// changed rows of one of `tables`, until the returned handle is cancelled.
    public func observeCommits(to tables: String..., onChange: @escaping @Sendable () -> Void) -> AnyDatabaseCancellable {
        TableCommitObserver.start(tables, in: writer, onChange: onChange)
    }

    /// Throws unless the file can be read right now: what `/health` reports.
    public func checkReadable() async throws {
        // Cached: load balancers ask often, and parsing the statement anew was most of its SQLite work.
        _ = try await quickRead { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }
    }
}
