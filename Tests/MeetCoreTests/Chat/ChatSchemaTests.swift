import GRDB
import Testing
@testable import MeetCore

/// Migrations that change stored chat rows, run on a file that has such rows from before.
@Suite struct ChatSchemaTests {
    /// Before 407 a deletion left its message's `edited` events with the text: the migration
    /// blanks them, and only them.
    @Test func migration407BlanksTheEditsOfDeletedMessagesOnly() throws {
        let database = try DatabaseQueue()
        try Schema.migrator.migrate(database, upTo: "406 a room grant ends only when a value it rests on changes")
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO chatRoom (id, kind) VALUES ('direct:a:b', 'direct');
                INSERT INTO chatMessage (roomId, seq, id, type, text, refersToSeq, sentAt, deletedAt) VALUES
                    ('direct:a:b', 1, 'm1', 'message', NULL, NULL, 0, 5),
                    ('direct:a:b', 2, 'm2', 'message', 'kept, edited', NULL, 0, NULL),
                    ('direct:a:b', 3, 'e1', 'edited', 'the redacted text', 1, 1, NULL),
                    ('direct:a:b', 4, 'e2', 'edited', 'kept, edited', 2, 1, NULL),
                    ('direct:a:b', 5, 'd1', 'deleted', NULL, 1, 5, NULL);
                """)
        }
        try Schema.migrator.migrate(database)
        let texts = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, text FROM chatMessage ORDER BY seq").map { "\($0[0] as Int) \($0[1] as String? ?? "nil")" }
        }
        #expect(texts == ["1 nil", "2 kept, edited", "3 nil", "4 kept, edited", "5 nil"])
    }
}
