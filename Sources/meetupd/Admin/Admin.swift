import ArgumentParser

/// `meetupd admin ...`: what moderators do from the server's terminal, on the same data
/// directory as a running server, safely at the same time.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Moderation and operation from the terminal: users, meetings, activities, the audit log, the database, remote configuration, promos.",
        discussion: "Every command takes --data-dir like serve, prints a table (or JSON with --json), and exits with 0 on success, 1 with a one-line reason when it cannot do what was asked, 64 on bad usage. Changes reach a running server within a second. An id that starts with '-' (made before 2026-11-23) goes last, after '--': meetupd admin users show --json -- -AbC.",
        subcommands: [
            AdminUsers.self, AdminMeetings.self, AdminMessages.self, AdminReports.self, AdminActivities.self, AdminAudit.self, AdminStats.self,
            AdminDatabase.self, AdminNotifications.self, ConfigCommand.self, PromoCommand.self,
        ])
}
