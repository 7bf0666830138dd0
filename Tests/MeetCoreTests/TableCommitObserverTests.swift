import Foundation
import GRDB
import Synchronization
import Testing

@testable import MeetCore

/// `AppDatabase.observeCommits`: told once per committed transaction that changed one of its
/// tables (whatever case a statement spells it in), never for other tables, a rollback or after
/// cancel.
@Suite(.timeLimit(.minutes(1)))
struct TableCommitObserverTests {
    let folder: TemporaryFolder
    let database: AppDatabase

    init() throws {
        folder = try TemporaryFolder("meetupd-tablecommits-")
        database = try AppDatabase(path: folder.url.appendingPathComponent("meetupd.sqlite").path)
        try database.writer.write { db in
            try db.execute(sql: """
                CREATE TABLE probe (value INTEGER); CREATE TABLE other (value INTEGER); CREATE TABLE third (value INTEGER)
                """)
        }
    }

    @Test func toldOfCommittedChangesOfItsTableOnly() throws {
        let commits = Mutex(0)
        let observation = database.observeCommits(to: "probe") { commits.withLock { $0 += 1 } }
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO probe (value) VALUES (1), (2)")
            try db.execute(sql: "UPDATE PROBE SET value = 3")
        }
        #expect(commits.withLock { $0 } == 1)
        try? database.writer.write { db in
            try db.execute(sql: "DELETE FROM probe")
            throw DatabaseError(resultCode: .SQLITE_ABORT)
        }
        // After the rollback, a commit that changes another table only: the rolled-back
        // change must not be told with it.
        try database.writer.write { db in try db.execute(sql: "INSERT INTO other (value) VALUES (1)") }
        #expect(commits.withLock { $0 } == 1)
        try database.writer.write { db in try db.execute(sql: "DELETE FROM Probe") }
        #expect(commits.withLock { $0 } == 2)
        observation.cancel()
        try database.writer.write { db in try db.execute(sql: "INSERT INTO probe (value) VALUES (4)") }
        #expect(commits.withLock { $0 } == 2)
    }

    @Test func toldOnceOfACommitThatChangedSeveralOfItsTables() throws {
        let commits = Mutex(0)
        let observation = database.observeCommits(to: "probe", "third") { commits.withLock { $0 += 1 } }
        defer { observation.cancel() }
        try database.writer.write { db in try db.execute(sql: "INSERT INTO third (value) VALUES (1)") }
        #expect(commits.withLock { $0 } == 1)
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO probe (value) VALUES (1); INSERT INTO THIRD (value) VALUES (2)")
        }
        #expect(commits.withLock { $0 } == 2)
        try database.writer.write { db in try db.execute(sql: "INSERT INTO other (value) VALUES (1)") }
        #expect(commits.withLock { $0 } == 2)
    }

    /// Rows a trigger changes count as the statement's own: a write to a `WITHOUT ROWID` table,
    /// whose rows SQLite does not report, is seen through the row its trigger touches (as
    /// `meetingMember`'s triggers touch `meeting`, which `ChatPosters` relies on).
    @Test func toldOfChangesMadeByATrigger() throws {
        try database.writer.write { db in
            try db.execute(sql: """
                CREATE TABLE pair (a TEXT, b TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
                INSERT INTO probe (value) VALUES (0);
                CREATE TRIGGER pair_added AFTER INSERT ON pair BEGIN UPDATE probe SET value = value + 1; END;
                """)
        }
        let commits = Mutex(0)
        let observation = database.observeCommits(to: "probe") { commits.withLock { $0 += 1 } }
        defer { observation.cancel() }
        let unseen = Mutex(0)
        let pairs = database.observeCommits(to: "pair") { unseen.withLock { $0 += 1 } }
        defer { pairs.cancel() }
        try database.writer.write { db in try db.execute(sql: "INSERT INTO pair (a, b) VALUES ('x', 'y')") }
        #expect(commits.withLock { $0 } == 1)
        #expect(unseen.withLock { $0 } == 0)
    }
}
