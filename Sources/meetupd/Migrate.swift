import ArgumentParser
import MeetCore

/// `meetupd migrate`: creates the database if needed and applies pending migrations, then exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or upgrade the database, then exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try common.bootstrapLogging()
        let directory = common.resolvedDataDirectory()
        let database = try AppDatabase(dataDirectory: directory)
        let applied = try database.appliedMigrations()
        print("\(directory)/\(AppDatabase.fileName) is up to date (\(applied.count) migrations, last: \(applied.last ?? "none")).")
    }
}
