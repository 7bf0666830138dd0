import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import MeetCore

/// The chat insert binds its values itself (``DirectlyBound``), which is only safe while no
/// transaction observer can see `chatMessage`'s rows, and must refuse what GRDB refused.
@Suite struct DirectlyBoundTests {
    private let folder: TemporaryFolder
    private let database: AppDatabase

    init() throws {
        folder = try TemporaryFolder("meetcore-directly-bound-")
        database = try AppDatabase(path: folder.url.appendingPathComponent("db.sqlite").path)
    }

    /// A migration that gives `chatMessage` a rowid or a trigger must make the insert go back
    /// to GRDB's execution (its observers would miss those rows).
    @Test func chatMessageHasNoRowidAndNoTriggers() async throws {
        let (sql, triggers) = try await database.reader.read { db in
            (try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chatMessage'"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'chatMessage'"))
        }
        #expect(sql?.hasSuffix("WITHOUT ROWID") == true)
        #expect(triggers == 0)
    }

    @Test func bindsInOrderAndCountsChanges() async throws {
        let (changes, rows) = try database.writer.write { db -> ([Int], [Row]) in
            try db.execute(sql: "CREATE TABLE probe (a TEXT, b INTEGER, c REAL, d TEXT, PRIMARY KEY (a)) WITHOUT ROWID")
            var insert = DirectlyBound(try db.cachedStatement(sql: "INSERT INTO probe VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"), in: db)
            var changes: [Int] = []
            for _ in 0..<2 {
                insert.bind("ключ")  // not ASCII: bound by its UTF-8 bytes
                insert.bind(Int64(7))
                insert.bind(1.5)
                insert.bind(nil as String?)
                changes.append(try insert.execute())
            }
            return (changes, try Row.fetchAll(db, sql: "SELECT a, b, c, d FROM probe"))
        }
        #expect(changes == [1, 0])
        #expect(rows.count == 1)
        #expect(rows.first?["a"] == "ключ")
        #expect(rows.first?["b"] == 7 as Int64)
        #expect(rows.first?["c"] == 1.5)
        #expect(rows.first?.hasNull(atIndex: 3) == true)
    }

    /// Texts are bound where SQLite reads them in place: each must be stored as it was, an
    /// empty one as empty (not NULL), whatever its length, and the statement keeps no pointer
    /// to them once it ran (GRDB may run it again with values of its own).
    @Test func storesEveryTextAsGivenAndKeepsNoneBound() async throws {
        let texts = ["", "a", "fifteen bytes!!", String(repeating: "long text é ", count: 400), "ключ"]
        let (stored, kept) = try await database.writer.write { db -> ([[String?]], String?) in
            try db.execute(sql: "CREATE TABLE probe (n INTEGER PRIMARY KEY, a TEXT, b TEXT) WITHOUT ROWID")
            let statement = try db.cachedStatement(sql: "INSERT INTO probe (n, a, b) VALUES (?, ?, ?)")
            var insert = DirectlyBound(statement, in: db)
            for (n, text) in texts.enumerated() {
                insert.bind(Int64(n))
                insert.bind(text)
                insert.bind(String(text.reversed()))
                _ = try insert.execute()
            }
            // The statement with what is bound now written in: NULLs, no text freed since.
            let expanded = sqlite3_expanded_sql(statement.sqliteStatement)
            defer { sqlite3_free(expanded) }
            return (try Row.fetchAll(db, sql: "SELECT a, b FROM probe ORDER BY n").map { [$0["a"], $0["b"]] },
                    expanded.map { String(cString: $0) })
        }
        #expect(stored == texts.map { [$0, String($0.reversed())] })
        #expect(kept == "INSERT INTO probe (n, a, b) VALUES (NULL, NULL, NULL)")
    }

    @Test func refusesABrokenConstraintAndStaysUsable() async throws {
        let (codes, stored) = try await database.writer.write { db -> ([ResultCode?], [String]) in
            try db.execute(sql: "CREATE TABLE probe (a TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
            var insert = DirectlyBound(try db.cachedStatement(sql: "INSERT INTO probe (a) VALUES (?)"), in: db)
            var codes: [ResultCode?] = []
            for value in ["x", "x", "y"] {
                insert.bind(value)
                do {
                    _ = try insert.execute()
                    codes.append(nil)
                } catch let error as DatabaseError {
                    codes.append(error.resultCode)
                }
            }
            return (codes, try String.fetchAll(db, sql: "SELECT a FROM probe ORDER BY a"))
        }
        #expect(codes == [nil, .SQLITE_CONSTRAINT, nil])
        #expect(stored == ["x", "y"])
    }

    @Test func refusesUnboundParameters() async throws {
        try await database.writer.write { db in
            try db.execute(sql: "CREATE TABLE probe (a TEXT, b TEXT)")
            var insert = DirectlyBound(try db.cachedStatement(sql: "INSERT INTO probe (a, b) VALUES (?, ?)"), in: db)
            insert.bind("only one")
            #expect(throws: DatabaseError.self) { try insert.execute() }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM probe") == 0)
        }
    }
}
