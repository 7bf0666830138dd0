import GRDB
import GRDBSQLite

/// Runs one of GRDB's cached statements through SQLite's C API: its values bound one by one,
/// its steps taken without GRDB's statement bookkeeping. For the insert every chat post runs,
/// where GRDB spent more than SQLite: boxing the twelve values as `StatementArguments` and
/// binding them (~12,000 instructions a post) and asking every transaction observer about
/// the statement before and after it ran (~5,000), against ~34,000 for SQLite's own insert
/// (issue 10).
///
/// Only for a statement no transaction observer can see: one that writes a `WITHOUT ROWID`
/// table without triggers (SQLite reports no row changes of such tables, so no observer
/// hears of them whichever way the statement runs) and neither begins nor ends a
/// transaction. GRDB keeps the statement (it finalizes it with the connection); it must not
/// also run it with arguments of its own.
struct DirectlyBound {
    private let statement: SQLiteStatement
    /// GRDB's statement, for its SQL in an error (which GRDB builds anew at each read).
    private let source: Statement
    private let db: Database
    private var index: CInt = 0

    /// Starts binding `statement` (of `db`) anew, from its first parameter.
    init(_ statement: Statement, in db: Database) {
        self.statement = statement.sqliteStatement
        self.source = statement
        self.db = db
        sqlite3_reset(self.statement)
    }

    /// Binds the next parameter to `text` (SQLite copies it), or to NULL.
    mutating func bind(_ text: String?) {
        index += 1
        guard var text else {
            sqlite3_bind_null(statement, index)
            return
        }
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement, index, bytes.baseAddress, CInt(bytes.count), Self.transient)
        }
    }

    /// Binds the next parameter to `number`, or to NULL.
    mutating func bind(_ number: Int64?) {
        index += 1
        guard let number else {
            sqlite3_bind_null(statement, index)
            return
        }
        sqlite3_bind_int64(statement, index, number)
    }

    /// Binds the next parameter to `number`.
    mutating func bind(_ number: Double) {
        index += 1
        sqlite3_bind_double(statement, index, number)
    }

    /// Runs the statement to its end and returns how many rows it changed; refuses a statement
    /// left with parameters unbound, as GRDB does. Binding starts anew afterwards.
    /// - Throws: `DatabaseError` with SQLite's code and message (a constraint it broke).
    mutating func execute() throws -> Int {
        defer {
            sqlite3_reset(statement)
            index = 0
        }
        guard index == sqlite3_bind_parameter_count(statement) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(index) values bound of \(sqlite3_bind_parameter_count(statement))",
                                sql: source.sql)
        }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: source.sql)
        }
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// SQLite's `SQLITE_TRANSIENT`, a macro Swift does not import: SQLite copies the value.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
