import ArgumentParser
import Foundation
import MeetCore
import MeetServer

/// `meetupd admin users ...`: find people and act on their accounts.
struct AdminUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Find users; confirm, ban, unban, promote, demote, delete them; mail them a password reset.",
        subcommands: [List.self, Search.self, Show.self, Confirm.self, Ban.self, Unban.self, Promote.self, Demote.self, ResetPassword.self, Delete.self])

    static func table(_ users: [ModeratedUser]) -> TextTable {
        TextTable(columns: ["id", "email", "name", "role", "confirmed", "banned", "created"], rows: users.map {
            [$0.id, $0.email, $0.displayName, $0.role.rawValue, $0.confirmed ? "yes" : "no", $0.banned ? "yes" : "no", $0.createdAt.shown]
        })
    }

    static func table(_ user: ModeratedUser) -> TextTable {
        .fields([
            "id": user.id, "email": user.email, "name": user.displayName, "role": user.role.rawValue,
            "confirmed": user.emailConfirmedAt?.shown ?? "no", "banned": user.banned ? "yes\(user.bannedUntil.map { " until " + $0.shown } ?? ""): \(user.banReason ?? "")" : "no",
            "created": user.createdAt.shown,
        ])
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest users.")
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let users = try await admin.moderation().users(limit: limit.limit)
                try admin.print(users, table: AdminUsers.table(users))
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Users whose e-mail or display name contains TEXT.")
        @Argument(help: "Part of an e-mail address or a display name.") var text: String
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func validate() throws {
            guard !text.isEmpty else { throw ValidationError("Give some text to search for.") }
        }

        func run() async throws {
            try await admin.perform {
                let users = try await admin.moderation().users(search: text, limit: limit.limit)
                try admin.print(users, table: AdminUsers.table(users))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One user, with their sessions, devices, moderation history and the reports against them.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let details = try await admin.moderation().user(user)
                var table = AdminUsers.table(details.user)
                table.rows.append(["sessions", String(details.activeSessions)])
                table.rows += details.devices.map {
                    ["device", "\($0.id) \($0.pushService) app \($0.appVersion ?? "?") since \($0.createdAt.shown)"
                        + ($0.disabledAt.map { " (disabled \($0.shown))" } ?? "")]
                }
                table.rows += details.reports.map { ["report", "\($0.id) \($0.status) \($0.targetType.rawValue) \($0.targetId): \($0.reason)"] }
                table.rows += details.history.map { ["history", "\($0.createdAt.shown) \($0.action) by \($0.actor): \($0.reason ?? "")"] }
                try admin.print(details, table: table)
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Confirm a user's e-mail address, as the mailed link would.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let changed = try await admin.moderation().confirm(user, by: admin.moderator)
                try admin.print(changed, table: AdminUsers.table(changed))
            }
        }
    }

    struct Ban: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ban a user: their tokens stop working and their live sessions close within a second.",
            discussion: "With --until the ban lapses by itself at that time: login works again at once, the running server lifts it within seconds.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var reason: RequiredReason
        @Option(help: "When the ban ends: an RFC 3339 time (2026-12-01T18:00:00Z) or a date (midnight UTC). For good without it.")
        var until: BanEnd?
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let changed = try await admin.moderation().ban(user, reason: reason.reason, until: until?.date, by: admin.moderator)
                try admin.print(changed, table: AdminUsers.table(changed))
            }
        }
    }

    struct Unban: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lift a ban; the user signs in again.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var reason: OptionalReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let changed = try await admin.moderation().unban(user, reason: reason.reason, by: admin.moderator)
                try admin.print(changed, table: AdminUsers.table(changed))
            }
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a user a moderator (may use /api/v1/admin).")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let changed = try await admin.moderation().setRole(user, to: .moderator, by: admin.moderator)
                try admin.print(changed, table: AdminUsers.table(changed))
            }
        }
    }

    struct Demote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a moderator's role back.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let changed = try await admin.moderation().setRole(user, to: .user, by: admin.moderator)
                try admin.print(changed, table: AdminUsers.table(changed))
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mail a user a password-reset link, as if they had asked (no mail limit applies).",
            discussion: "The mail is queued in the database; the server sends it (within a second when it runs), with its own public address in the link.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let mailed = try await admin.accounts().sendPasswordReset(to: user, by: admin.moderator)
                try admin.print(["mailed": mailed], table: .fields(["mailed": mailed]))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a user's account and personal data; others' chat stays, shown without an author.")
        @Argument(help: "The user's id or e-mail address.") var user: String
        @OptionGroup var reason: RequiredReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                try await admin.moderation().deleteUser(user, reason: reason.reason, by: admin.moderator)
                try admin.print(["deleted": user], table: .fields(["deleted": user]))
            }
        }
    }
}

/// `--until`: a moment in RFC 3339, or a calendar date meaning its midnight UTC.
struct BanEnd: ExpressibleByArgument {
    var date: Date

    init?(argument: String) {
        guard let date = RFC3339.date(from: argument) ?? RFC3339.date(from: argument + "T00:00:00Z") else { return nil }
        self.date = date
    }
}
