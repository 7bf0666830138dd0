import ArgumentParser
import Foundation
import MeetCore

/// `meetupd admin meetings ...`: list, read and cancel any meeting, private ones included.
struct AdminMeetings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meetings", abstract: "List, show, cancel and delete meetings.", subcommands: [List.self, Show.self, Cancel.self, Delete.self])

    static func table(_ meetings: [ModeratedMeeting]) -> TextTable {
        TextTable(columns: ["id", "title", "organizer", "visibility", "status", "starts", "members"], rows: meetings.map {
            [$0.id, $0.title, $0.organizerId, $0.visibility, $0.status, $0.startsAt.shown, String($0.memberCount)]
        })
    }

    static func table(_ meeting: ModeratedMeeting) -> TextTable {
        .fields([
            "id": meeting.id, "title": meeting.title, "description": meeting.description, "organizer": meeting.organizerId,
            "visibility": meeting.visibility, "status": meeting.status, "starts": meeting.startsAt.shown,
            "members": String(meeting.memberCount), "created": meeting.createdAt.shown,
        ])
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest meetings, cancelled ones with --all.")
        @Option(help: "Only meetings whose title contains this text.") var search: String?
        @Flag(help: "Cancelled meetings too.") var all = false
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let meetings = try await admin.moderation().meetings(search: search, includeCancelled: all, limit: limit.limit)
                try admin.print(meetings, table: AdminMeetings.table(meetings))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One meeting, private or not.")
        @Argument(help: "The meeting's id.") var meeting: String
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let found = try await admin.moderation().meeting(meeting)
                try admin.print(found, table: AdminMeetings.table(found))
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a meeting as its organizer would: members are told, it leaves the feed at once.")
        @Argument(help: "The meeting's id.") var meeting: String
        @OptionGroup var reason: RequiredReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let cancelled = try await admin.moderation().cancelMeeting(meeting, reason: reason.reason, by: admin.moderator)
                try admin.print(cancelled, table: AdminMeetings.table(cancelled))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a meeting with its members, invitations and chat; it leaves the feed at once.")
        @Argument(help: "The meeting's id.") var meeting: String
        @OptionGroup var reason: RequiredReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                try await admin.moderation().deleteMeeting(meeting, reason: reason.reason, by: admin.moderator)
                try admin.print(["deleted": meeting], table: .fields(["deleted": meeting]))
            }
        }
    }
}
