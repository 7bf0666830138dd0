import GRDB
import GRDBSQLite

/// Runs one of GRDB's cached statements through SQLite's C API: its values bound one by one,
/// its steps taken without GRDB's statement bookkeeping. For the insert every chat post runs,
/// where GRDB spent more than SQLite: boxing the twelve values as `StatementArguments` and
/// binding them (~12,000 instructions a post) and asking every transaction observer about
/// the statement before and after it ran (~5,000), against ~34,000 for SQLite's own insert
/// (issue 10). Texts are read by SQLite in place while the statement runs, not copied.
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
    /// The texts bound, each with its parameter, kept until the statement runs.
    private var texts: [(index: CInt, text: String)] = []

    /// Starts binding `statement` (of `db`) anew, from its first parameter.
    init(_ statement: Statement, in db: Database) {
        self.statement = statement.sqliteStatement
        self.source = statement
        self.db = db
        texts.reserveCapacity(Int(sqlite3_bind_parameter_count(self.statement)))
        sqlite3_reset(self.statement)
    }

    /// Binds the next parameter to `text`, or to NULL. The text is bound when the statement
    /// runs, where SQLite can read it in place instead of copying it (a copy and an allocation
    /// for each of a post's seven texts).
    mutating func bind(_ text: String?) {
        index += 1
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        texts.append((index, text))
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
            texts.removeAll(keepingCapacity: true)
        }
        guard index == sqlite3_bind_parameter_count(statement) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(index) values bound of \(sqlite3_bind_parameter_count(statement))",
                                sql: source.sql)
        }
        let code = steppingWithTexts(from: 0)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: source.sql)
        }
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// Binds the texts from `texts[first]` on, each to its UTF-8 bytes as SQLite's
    /// `SQLITE_STATIC` (no copy: they stay valid until the innermost call returns), then takes
    /// the statement's step and unbinds them before their bytes go.
    private func steppingWithTexts(from first: Int) -> CInt {
        guard first < texts.count else {
            let code = sqlite3_step(statement)
            sqlite3_clear_bindings(statement)
            return code
        }
        var text = texts[first].text
        return text.withUTF8 { bytes in
            // An empty text has no bytes to point at; SQLite reads nothing from this one.
            let start = bytes.baseAddress.map(UnsafeRawPointer.init) ?? Self.empty
            sqlite3_bind_text(statement, texts[first].index, start.assumingMemoryBound(to: CChar.self), CInt(bytes.count), nil)
            return steppingWithTexts(from: first + 1)
        }
    }

    /// Where an empty text's bytes are said to start (NULL would bind NULL).
    private static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
}
