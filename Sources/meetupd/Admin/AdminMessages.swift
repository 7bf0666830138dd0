import ArgumentParser
import MeetCore

/// `meetupd admin messages show`: a meeting's chat as moderators read it.
struct AdminMessages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages", abstract: "Read a meeting's chat; redact a message.", subcommands: [Show.self, Redact.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The last messages of a meeting's room, or those around --around SEQ.")
        @Argument(help: "The meeting's id (its room).") var room: String
        @Option(help: "Show the messages around this seq.") var around: Int64?
        @OptionGroup var limit: LimitOption
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let messages = try await admin.moderation().messages(ofMeeting: room, around: around, limit: limit.limit)
                try admin.print(messages, table: TextTable(columns: ["seq", "id", "sent", "sender", "type", "text"], rows: messages.map {
                    [String($0.seq), $0.id, $0.sentAt.shown, $0.senderName ?? "(deleted)", $0.type, $0.text ?? ""]
                }))
            }
        }
    }

    struct Redact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Redact a message: its text goes and the room's subscribers get it as deleted within a second.")
        @Argument(help: "The message's id.") var message: String
        @OptionGroup var reason: RequiredReason
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                try await admin.moderation().redactMessage(message, reason: reason.reason, by: admin.moderator)
                try admin.print(["redacted": message], table: .fields(["redacted": message]))
            }
        }
    }
}
