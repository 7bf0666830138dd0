import ArgumentParser

/// The `meetupd` command line: the service and its maintenance commands.
@main
struct Meetupd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The backend of the meetup-organizer app: REST, STOMP over WebSocket, push, all on SQLite.",
        subcommands: [Serve.self, Migrate.self, Admin.self]
    )
}
