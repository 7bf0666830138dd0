import ArgumentParser
import Foundation
import MeetCore

/// `meetupd admin reports ...`: what users reported, and the moderator's decision.
struct AdminReports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports", abstract: "List, show and resolve users' reports.", subcommands: [List.self, Show.self, Resolve.self])

    static func table(_ reports: [Report]) -> TextTable {
        TextTable(columns: ["id", "created", "reporter", "target", "reason", "status"], rows: reports.map {
            [$0.id, $0.createdAt.shown, $0.reporterId, "\($0.targetType.rawValue) \($0.targetId)", $0.reason,
             $0.resolution.map { "resolved: \($0.rawValue)" } ?? $0.status]
        })
    }

    static func table(_ report: Report) -> TextTable {
        .fields([
            "id": report.id, "reporter": report.reporterId, "target": "\(report.targetType.rawValue) \(report.targetId)",
            "reason": report.reason, "details": report.details ?? "", "status": report.status,
            "resolution": report.resolution?.rawValue ?? "", "created": report.createdAt.shown,
        ])
    }

    /// The report, then the reported message with its room when there is one.
    static func table(_ details: ReportDetails) -> TextTable {
        var table = table(details.report)
        if let message = details.message, let room = details.roomId {
            table.rows += [
                ["room", room],
                ["message", "#\(message.seq) \(message.senderName ?? "(deleted account)") at \(message.sentAt.shown)"
                    + (message.deletedAt == nil ? "" : ", deleted")],
                ["text", message.text ?? ""],
            ]
        }
        return table
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest reports.")
        @Flag(help: "Only open reports.") var open = false
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let reports = try await admin.moderation().reports(openOnly: open, limit: limit.limit)
                try admin.print(reports, table: AdminReports.table(reports))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One report.")
        @Argument(help: "The report's id.") var report: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let found = try await admin.moderation().report(report)
                try admin.print(found, table: AdminReports.table(found))
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close a report (and the other open reports of its target) with a decision.",
            discussion: "dismiss: nothing wrong; warn: recorded; ban: bans the user reported, the message's sender or the meeting's organizer; redact: redacts the reported message.")
        @Argument(help: "The report's id.") var report: String
        @Option(help: "dismiss, warn, redact or ban.") var action: String
        @Option(help: "A note for the audit log (the ban's reason with --action ban).") var note: String?
        @OptionGroup var admin: AdminOptions

        func validate() throws {
            guard Report.Resolution(rawValue: action) != nil else {
                throw ValidationError("--action must be one of: \(Report.Resolution.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
        }

        func run() async throws {
            try await admin.perform {
                let resolved = try await admin.moderation().resolve(
                    report, action: Report.Resolution(rawValue: action) ?? .dismiss, note: note, by: admin.moderator)
                try admin.print(resolved, table: AdminReports.table(resolved))
            }
        }
    }
}

/// `--limit`, checked the same way by every list.
struct LimitOption: ParsableArguments {
    @Option(help: "How many (1-1000).") var limit = 50

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000.") }
    }
}

/// `--reason`, which bans, cancellations and deletions must give (kept in the audit log).
struct RequiredReason: ParsableArguments {
    @Option(help: "Why; kept in the audit log.") var reason: String

    func validate() throws {
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--reason must not be empty.") }
    }
}

/// `--reason` where giving one is up to the moderator (unbans, merges, renames).
struct OptionalReason: ParsableArguments {
    @Option(help: "Why; kept in the audit log.") var reason: String?
}
