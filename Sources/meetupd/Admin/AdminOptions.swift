import ArgumentParser
import Foundation
import MeetCore

/// What every `meetupd admin` command shares: the data directory, `--json`, who acts, and
/// one way to fail (a one-line reason on stderr, exit code 1).
struct AdminOptions: ParsableArguments {
    @OptionGroup var common: CommonOptions

    @Flag(help: "Print JSON for scripts instead of a table.")
    var json = false

    /// The data directory's database, migrated if needed; every commit that logs a change
    /// nudges a server running on the same directory.
    func openDatabase() throws -> AppDatabase {
        let directory = common.resolvedDataDirectory()
        let database = try AppDatabase(dataDirectory: directory)
        ChangeNudge.install(on: database, dataDirectory: directory)
        return database
    }

    func moderation() throws -> ModerationService {
        ModerationService(database: try openDatabase(), now: Date.init)
    }

    /// Account operations; their mails wait in the database's outbox for the server to send.
    func accounts() throws -> AccountService {
        AccountService(database: try openDatabase(), now: Date.init)
    }

    /// The person at the terminal, as the audit log names them.
    var moderator: Moderator {
        let environment = ProcessInfo.processInfo.environment
        return .terminal(login: environment["SUDO_USER"] ?? environment["USER"] ?? environment["LOGNAME"] ?? "uid\(getuid())")
    }

    /// Prints `value` as JSON with `--json`, else as `table`.
    func print(_ value: some Encodable, table: @autoclosure () -> TextTable) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))
        } else {
            Swift.print(table().rendered, terminator: "")
        }
    }

    /// Runs `body`; a refusal (no such user, already banned...) becomes its English detail on
    /// stderr and exit code 1.
    func perform(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as MeetError {
            throw AdminFailure(Self.explain(error))
        }
    }

    private static func explain(_ error: MeetError) -> String {
        let localizer = try? Localizer.bundled()
        let fields = error.fieldProblems.map { problem in
            "\(problem.field): " + (localizer?.localized(problem.code + ".detail", language: "en", arguments: problem.arguments) ?? problem.code)
                + " (\(problem.code))"
        }
        let detail = localizer?.localized(error.code + ".detail", language: "en", arguments: error.arguments) ?? error.code
        return ([detail] + fields).joined(separator: "; ") + " (\(error.code))"
    }
}

/// A command that could not do what was asked: its reason goes to stderr, the exit code is 1.
struct AdminFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Plain columns for a terminal: a header, a rule, one line per row.
struct TextTable {
    var columns: [String]
    var rows: [[String]]

    var rendered: String {
        guard !rows.isEmpty else { return "(none)\n" }
        let widths = columns.indices.map { column in
            ([columns[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        return line(columns) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }

    /// A two-column table of names and values, for one record.
    static func fields(_ pairs: KeyValuePairs<String, String>) -> TextTable {
        TextTable(columns: ["field", "value"], rows: pairs.map { [$0.key, $0.value] })
    }
}

extension Date {
    /// RFC 3339 in UTC, to the second, for tables.
    var shown: String { ISO8601DateFormatter().string(from: self) }
}
