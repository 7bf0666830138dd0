import Foundation
import GRDB
import Synchronization
import Testing

@testable import MeetCore

/// `AppDatabase.quickRead`: reads on the caller's thread through the inline connections,
/// falling back to the pool when they are all busy.
@Suite(.timeLimit(.minutes(1)))
struct QuickReadTests {
    let folder: TemporaryFolder
    let database: AppDatabase

    init() throws {
        folder = try TemporaryFolder("meetupd-quickread-")
        database = try AppDatabase(path: folder.url.appendingPathComponent("meetupd.sqlite").path)
    }

    @Test func seesWhatWasCommittedBeforeIt() async throws {
        for value in 1...20 {
            try await database.writer.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS probe (value INTEGER)")
                try db.execute(sql: "INSERT INTO probe (value) VALUES (?)", arguments: [value])
            }
            let last = try await database.quickRead { db in try Int.fetchOne(db, sql: "SELECT max(value) FROM probe") }
            #expect(last == value)
        }
    }

    @Test func cannotWrite() async throws {
        await #expect(throws: DatabaseError.self) {
            try await database.quickRead { db in try db.execute(sql: "CREATE TABLE nope (x)") }
        }
        let tables = try await database.reader.read { db in try db.tableExists("nope") }
        #expect(!tables)
    }

    /// A read finding every inline connection busy does not wait for one (waiting on a pool
    /// from a cooperative thread deadlocked the server once): it gets nil, and `quickRead`
    /// takes the pool instead.
    @Test func aBusyConnectionIsNotWaitedFor() throws {
        let readers = try InlineReaders(path: folder.url.appendingPathComponent("meetupd.sqlite").path, count: 1) { _ in }
        let nested = try readers.read { _ in try readers.read { _ in 1 } }
        #expect(nested == .some(nil))
        #expect(try readers.read { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2)
    }

    /// `readWithoutPool` answers while every reader of the pool is held (as by HTTP requests
    /// whose tasks wait for the very event loop that reads), where `reader.read` would wait.
    @Test func aReadWithoutThePoolAnswersWhileEveryPoolReaderIsHeld() throws {
        let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let pooled = Configuration().maximumReaderCount
        for _ in 0..<pooled { database.reader.asyncRead { _ in held.signal(); release.wait() } }
        for _ in 0..<pooled { held.wait() }
        final class Answer: Sendable { let value = Mutex<Int?>(nil) }
        let (answered, answer) = (DispatchSemaphore(value: 0), Answer())
        Thread.detachNewThread { [database] in
            answer.value.withLock { $0 = try? database.readWithoutPool { db in try Int.fetchOne(db, sql: "SELECT 7") } }
            answered.signal()
        }
        let inTime = answered.wait(timeout: .now() + 10) == .success
        for _ in 0..<pooled { release.signal() }
        if !inTime { answered.wait() }
        #expect(inTime)
        #expect(answer.value.withLock { $0 } == 7)
    }

    /// A read that must not take the pool waits its turn when every inline connection is busy.
    @Test func aReadWaitingForAConnectionGetsOne() throws {
        let readers = try InlineReaders(path: folder.url.appendingPathComponent("meetupd.sqlite").path, count: 1) { _ in }
        let nested = try readers.read { _ in try readers.readWaiting { db in try Int.fetchOne(db, sql: "SELECT 3") } }
        #expect(nested == .some(3))
    }

    /// An inline read is one transaction: it sees one snapshot, and a read that failed leaves
    /// none behind on its connection.
    @Test func anInlineReadIsOneTransaction() throws {
        let readers = try InlineReaders(path: folder.url.appendingPathComponent("meetupd.sqlite").path, count: 1) { _ in }
        func insert(_ value: Int) throws {
            try database.writer.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS probe (value INTEGER)")
                try db.execute(sql: "INSERT INTO probe (value) VALUES (?)", arguments: [value])
            }
        }
        let last = "SELECT max(value) FROM probe"
        try insert(1)
        let seen = try readers.read { db in
            let before = try Int.fetchOne(db, sql: last)
            try insert(2)  // committed by another connection during the read
            return [before, try Int.fetchOne(db, sql: last)]
        }
        #expect(seen == [1, 1])
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try readers.read { db in
                _ = try Int.fetchOne(db, sql: last)
                throw Failure()
            }
        }
        try insert(3)
        #expect(try readers.read { db in try Int.fetchOne(db, sql: last) } == 3)
        #expect(try readers.read { db in db.isInsideTransaction } == true)
    }

    @Test func manyReadsAtOnceAllAnswer() async throws {
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<200 {
                group.addTask {
                    try await database.quickRead { db in
                        // A read long enough that others overlap it.
                        try Int.fetchOne(db, sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) SELECT ? + count(*) FROM c", arguments: [n])!
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sums.sorted() == (0..<200).map { $0 + 2000 })
    }
}
