import ArgumentParser
import MeetCore

/// `meetupd admin activities ...`: keep the catalog users extend tidy.
struct AdminActivities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities", abstract: "List, merge, rename, hide and show again the activities of the catalog.",
        subcommands: [List.self, Merge.self, Rename.self, Hide.self, Unhide.self])

    static func table(_ activities: [ModeratedActivity]) -> TextTable {
        TextTable(columns: ["id", "english", "ukrainian", "hidden", "profiles", "meetings", "proposed by"], rows: activities.map {
            [$0.id, $0.nameEn ?? "-", $0.nameUk ?? "-", $0.hidden ? "yes" : "no", String($0.profiles), String($0.meetings), $0.proposedBy ?? "-"]
        })
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The newest activities first (users' proposals before the seeded catalog), hidden ones included.")
        @Option(help: "Only activities whose English or Ukrainian name contains this text.") var search: String?
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let activities = try await admin.moderation().activities(search: search, limit: limit.limit)
                try admin.print(activities, table: AdminActivities.table(activities))
            }
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fold an activity into another: its profiles and meetings use the target instead, and it leaves the catalog.",
            discussion: "One transaction: a profile or meeting that had both keeps the target once. Prints the target after.")
        @Argument(help: "The id of the activity that goes.") var activity: String
        @Option(help: "The id of the activity that stays.") var into: String
        @OptionGroup var reason: OptionalReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let target = try await admin.moderation().mergeActivity(activity, into: into, reason: reason.reason, by: admin.moderator)
                try admin.print(target, table: AdminActivities.table([target]))
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an activity a new English and/or Ukrainian name.")
        @Argument(help: "The activity's id.") var activity: String
        @Option(help: "The new English name.") var en: String?
        @Option(help: "The new Ukrainian name.") var uk: String?
        @OptionGroup var reason: OptionalReason
        @OptionGroup var admin: AdminOptions

        func validate() throws {
            guard en != nil || uk != nil else { throw ValidationError("Give --en, --uk or both.") }
        }

        func run() async throws {
            try await admin.perform {
                let renamed = try await admin.moderation().renameActivity(
                    activity, english: en, ukrainian: uk, reason: reason.reason, by: admin.moderator)
                try admin.print(renamed, table: AdminActivities.table([renamed]))
            }
        }
    }

    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take an activity out of suggestions and refuse it for new profiles and meetings; existing uses stay.")
        @Argument(help: "The activity's id.") var activity: String
        @OptionGroup var reason: RequiredReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let hidden = try await admin.moderation().setActivityHidden(activity, true, reason: reason.reason, by: admin.moderator)
                try admin.print(hidden, table: AdminActivities.table([hidden]))
            }
        }
    }

    struct Unhide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Offer a hidden activity again.")
        @Argument(help: "The activity's id.") var activity: String
        @OptionGroup var reason: OptionalReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let shown = try await admin.moderation().setActivityHidden(activity, false, reason: reason.reason, by: admin.moderator)
                try admin.print(shown, table: AdminActivities.table([shown]))
            }
        }
    }
}
