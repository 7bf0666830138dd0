import Foundation
import GRDB
import Testing

@testable import MeetCore

/// The write-ahead log is copied into the file only once it holds
/// `AppDatabase.walCheckpointPages`, not at SQLite's default of 1,000 pages.
@Suite(.timeLimit(.minutes(1)))
struct WALCheckpointTests {
    @Test func theLogGrowsPastSQLitesDefaultBeforeACheckpoint() async throws {
        let folder = try TemporaryFolder("meetupd-wal-")
        let database = try AppDatabase(path: folder.url.appendingPathComponent("meetupd.sqlite").path)
        // About 1,500 pages in commits of ~100: the default would have checkpointed and
        // started the log over on the way.
        let page = String(repeating: "x", count: 3_500)
        try await database.writer.write { db in try db.execute(sql: "CREATE TABLE filler (text TEXT)") }
        for _ in 0..<15 {
            try await database.writer.write { db in
                for _ in 0..<100 { try db.execute(sql: "INSERT INTO filler (text) VALUES (?)", arguments: [page]) }
            }
        }
        let threshold = try await database.writer.writeWithoutTransaction { db in
            try Row.fetchOne(db, sql: "PRAGMA wal_autocheckpoint").map { $0[0] as Int }
        }
        #expect(threshold == AppDatabase.walCheckpointPages)
        let logFrames = try await database.writer.writeWithoutTransaction { db in
            // (busy, frames in the log, frames copied): the log's size before this checkpoint.
            try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)").map { $0[1] as Int }
        }
        #expect(try #require(logFrames) > 1_400)
    }
}
