import ArgumentParser
import Foundation
import MeetCore

/// `meetupd admin db ...`: copies and checks of the SQLite file, safe while the server runs.
struct AdminDatabase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Back the database up or check it, while the server runs.",
        subcommands: [Backup.self, Check.self])

    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the database to PATH through SQLite's online backup API: consistent under writes.")
        @Argument(help: "Where to write the copy; must not exist.") var path: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                try await admin.moderation().backup(to: path)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                try admin.print(["path": path, "bytes": String(size)], table: .fields(["path": path, "bytes": String(size)]))
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run SQLite's integrity check; exit code 1 if it finds problems.")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let problems = try await admin.moderation().checkDatabase()
                let ok = problems == ["ok"]
                try admin.print(["ok": ok ? "true" : "false", "problems": ok ? "" : problems.joined(separator: "\n")],
                                table: TextTable(columns: ["integrity"], rows: problems.map { [$0] }))
                if !ok { throw AdminFailure("the database has \(problems.count) integrity problems") }
            }
        }
    }
}

/// `meetupd admin stats`: how big and how busy the community is, and who is connected.
struct AdminStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Users, meetings, reports, messages per day, sessions connected.",
        discussion: "Connected sessions come from the server running on the data directory, asked over its socket (meetupd.sock); \"not running\" (JSON: live null) when none answers within two seconds.")
    @OptionGroup var admin: AdminOptions

    func run() async throws {
        try await admin.perform {
            let report = ModerationStatsReport(
                stats: try await admin.moderation().stats(),
                live: ServerLiveFigures.ask(dataDirectory: admin.common.resolvedDataDirectory()))
            let stats = report.stats
            var table = TextTable.fields([
                "users": String(stats.users), "confirmed users": String(stats.confirmedUsers), "banned users": String(stats.bannedUsers),
                "moderators": String(stats.moderators), "meetings": String(stats.meetings),
                "upcoming meetings": String(stats.upcomingMeetings), "open reports": String(stats.openReports),
                "sessions connected": report.live.map { "\($0.stompSessions) (\($0.stompUsers) users)" } ?? "server not running",
            ])
            table.rows += stats.messagesPerDay.map { ["messages \($0.day)", String($0.messages)] }
            try admin.print(report, table: table)
        }
    }
}

/// `meetupd admin audit list`: the moderators' actions, newest first.
struct AdminAudit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The audit log of moderator actions (never editable).", subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest lines of the audit log.")
        @Option(help: "Only lines about this target (a user, meeting, message or report id).") var target: String?
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let entries = try await admin.moderation().audit(limit: limit.limit, targetId: target)
                try admin.print(entries, table: TextTable(
                    columns: ["id", "when", "actor", "action", "target", "reason"],
                    rows: entries.map { [String($0.id), $0.createdAt.shown, $0.actor, $0.action, "\($0.targetType) \($0.targetId)", $0.reason ?? ""] }))
            }
        }
    }
}
