import Foundation
import GRDB
import Synchronization
import Testing
@testable import MeetCore

/// A commit hands over the ids of the changes it logged and nothing else: the change tail
/// takes them for this process's own (and skips them where it follows only other processes),
/// so a stray id could hide another process's change with that id.
@Suite struct ChangeCommitObserverTests {
    @Test func aCommitHandsOverOnlyTheIdsOfTheChangesItLogged() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob")
        let handed = Mutex<[Int64]>([])
        f.database.writer.add(transactionObserver: ChangeCommitObserver { ids, _ in handed.withLock { $0 += ids } },
                              extent: .databaseLifetime)
        let logged = try await f.database.reader.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM changeLog") }
        // Meetings, memberships and events are written in the transactions that log changes.
        let meeting = try await f.service.create(MeetingFixture.draft(), by: "ann")
        _ = try await f.service.join(meeting.id, by: "bob")
        try await f.service.leave(meeting.id, by: "bob")
        // A user saved whole: the row is written by a statement whose trigger may log a
        // change; the first logs none (nothing it rests on changed), the second one.
        for sql in ["UPDATE user SET banned = banned, displayName = 'Bobby' WHERE id = 'bob'", "UPDATE user SET banned = 1 WHERE id = 'bob'"] {
            try await f.database.writer.write { db in try db.execute(sql: sql) }
        }
        let loggedSince = try await f.database.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM changeLog WHERE id > ? ORDER BY id", arguments: [logged.max() ?? 0])
        }
        #expect(!loggedSince.isEmpty)
        #expect(handed.withLock { $0.sorted() } == loggedSince)
    }
}
