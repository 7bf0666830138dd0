import Foundation
import GRDB
import Synchronization

/// Read-only connections on which a short read runs in the caller's own thread.
///
/// A read through the pool moves the task to a reader's dispatch queue and back: two thread
/// wake-ups, which on this service's few-row request reads cost more than the read itself
/// (`GET /health` costs a third less CPU without them). Blocking Swift's cooperative threads
/// on the pool instead deadlocked the server under load, because the pool's asynchronous
/// readers need a cooperative thread to give their connection back. So these connections
/// are the pool's strangers, and a read takes one only if one is idle at once: when all are
/// busy it does not wait but hops to the pool as before. Only a read that must not take the
/// pool (`readWaiting`) waits, for one more connection of its own.
final class InlineReaders: Sendable {
    private let idle: Mutex<[DatabaseQueue]>
    /// One more connection, for ``readWaiting(_:)`` when all of `idle` are busy.
    private let inTurn: Mutex<DatabaseQueue>

    /// Opens `count` read-only connections to the WAL database at `path`, prepared like the
    /// pool's (`prepare`).
    init(path: String, count: Int, prepare: @escaping @Sendable (Database) throws -> Void) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase(prepare)
        idle = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
        inTurn = Mutex(try DatabaseQueue(path: path, configuration: configuration))
    }

    /// `body`'s result, read on the calling thread; `nil` (and `body` not called) when every
    /// connection is busy.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let connection = idle.withLock({ $0.popLast() }) else { return nil }
        defer { idle.withLock { $0.append(connection) } }
        return try connection.readNow(body)
    }

    /// `body`'s result, read on the calling thread, waiting for a connection if all are busy.
    /// The wait cannot close a cycle: these connections only ever run short reads that never
    /// suspend, so whoever holds one gives it back without needing anything else.
    func readWaiting<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        if let value = try read(body) { return value }
        return try inTurn.withLock { connection in try connection.readNow(body) }
    }
}

private extension DatabaseQueue {
    /// `body` in one deferred transaction, like GRDB's synchronous `read`, but with BEGIN and
    /// COMMIT as cached statements: `read` compiles both for every read, 2.3 % of a feed
    /// request (issue 21). Named apart so that a caller in an async context cannot get an
    /// asynchronous overload (which hops threads) by accident.
    func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        try inDatabase { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            let value: T
            do {
                value = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            } catch {
                // Never give the connection back inside a transaction: its snapshot would stay.
                if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
                throw error
            }
            return value
        }
    }
}
