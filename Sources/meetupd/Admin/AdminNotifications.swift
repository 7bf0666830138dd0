import ArgumentParser
import MeetCore

/// `meetupd admin notifications ...`: the push queue's and the mail outbox's state, and their repairs.
struct AdminNotifications: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "Pushes and mails by state; retry the dead ones; purge finished pushes.",
        subcommands: [Stats.self, RetryDead.self, Purge.self])

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Push jobs by state (pending, sending, delivered, dead), and mails still in the outbox by state (pending, sending, dead).")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let stats = try await admin.moderation().pushStats()
                try admin.print(stats, table: .fields([
                    "pending": String(stats.pending), "sending": String(stats.sending),
                    "delivered": String(stats.delivered), "dead": String(stats.dead),
                    "mails pending": String(stats.mails.pending), "mails sending": String(stats.mails.sending),
                    "mails dead": String(stats.mails.dead),
                ]))
            }
        }
    }

    struct RetryDead: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make every dead push (or, with --mails, every dead mail) due again, with fresh attempts.",
            discussion: "A revived account mail (confirmation, reset) carries a fresh token. Audited as notification.retryDead.")
        @Flag(help: "Revive dead mails instead of dead pushes.") var mails = false
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let moderation = try admin.moderation()
                let count = try await mails ? moderation.retryDeadMails(by: admin.moderator) : moderation.retryDeadPushes(by: admin.moderator)
                try admin.print(["retried": count], table: .fields(["retried": String(count)]))
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget delivered and dead pushes older than --days.")
        @Option(help: "Age in days (at least 1).") var days = 30
        @OptionGroup var admin: AdminOptions

        func validate() throws {
            guard days >= 1 else { throw ValidationError("--days must be at least 1.") }
        }

        func run() async throws {
            try await admin.perform {
                let count = try await admin.moderation().purgePushes(olderThanDays: days, by: admin.moderator)
                try admin.print(["purged": count], table: .fields(["purged": String(count)]))
            }
        }
    }
}
