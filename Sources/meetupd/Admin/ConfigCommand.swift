import ArgumentParser
import Foundation
import MeetCore

/// `meetupd admin config ...`: versions of the remote configuration (`docs/remote-config.md`).
/// A running server picks up an activation or a rollback within a second.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Push, inspect, activate and roll back remote configuration versions.",
        subcommands: [Push.self, List.self, Show.self, Diff.self, Activate.self, Rollback.self])

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate a document and store it as a new version (not active yet).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The JSON document.") var file: String
        @Option(help: "Why this version exists.") var comment: String?
        @Flag(help: "Activate it at once.") var activate = false

        func run() async throws {
            try await admin.perform {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let service = try admin.remoteConfig()
                var version = try await service.push(data, comment: comment, by: admin.moderator.name)
                if activate { version = try await service.activate(version.id, by: admin.moderator.name) }
                try admin.print(VersionSummary(version)) { "version \(version.id) stored" + (activate ? " and active" : "") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every version, newest first.")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let versions = try await admin.remoteConfig().versions()
                try admin.print(versions.map { VersionSummary($0) }, table: TextTable(columns: ["VERSION", "ACTIVE", "KEYS", "CREATED", "BY", "COMMENT"], rows: versions.map { version in
                        [String(version.id), version.isActive ? "yes" : "", String(version.keyCount),
                         version.createdAt.shown, version.createdBy, version.comment ?? ""]
                    }))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a version's document (the active one by default).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The version number.") var version: Int64?

        func run() async throws {
            try await admin.perform {
                let found = try await admin.remoteConfig().version(version)
                // The document is JSON either way; --json wraps it with the version's facts.
                try admin.print(VersionSummary(found, withDocument: true)) {
                    String(decoding: found.document.canonicalJSON(pretty: true), as: UTF8.self)
                }
            }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What changed from version A to version B, key by key.")
        @OptionGroup var admin: AdminOptions
        @Argument var a: Int64
        @Argument var b: Int64

        func run() async throws {
            try await admin.perform {
                let changes = try await admin.remoteConfig().diff(a, b)
                try admin.print(changes.map(ChangeSummary.init)) {
                    changes.isEmpty ? "no differences" : changes.map { change in
                        let sign = ["added": "+", "removed": "-", "changed": "~"][change.kind.rawValue] ?? "?"
                        let before = change.before.map { "  - " + String(decoding: $0.canonicalJSON(), as: UTF8.self) }
                        let after = change.after.map { "  + " + String(decoding: $0.canonicalJSON(), as: UTF8.self) }
                        return ([sign + " " + change.key, before, after].compactMap { $0 }).joined(separator: "\n")
                    }.joined(separator: "\n")
                }
            }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a version the one clients get.")
        @OptionGroup var admin: AdminOptions
        @Argument var version: Int64

        func run() async throws {
            try await admin.perform {
                let active = try await admin.remoteConfig().activate(version, by: admin.moderator.name)
                try admin.print(VersionSummary(active)) { "version \(active.id) is active" }
            }
        }
    }

    struct Rollback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End the current activation; the version active before it is live again.")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let restored = try await admin.remoteConfig().rollback(by: admin.moderator.name)
                try admin.print(restored.map { VersionSummary($0) }) {
                    restored.map { "version \($0.id) is active again" } ?? "no version is active now"
                }
            }
        }
    }
}

/// A version as `--json` prints it.
struct VersionSummary: Encodable {
    var version: Int64
    var active: Bool
    var createdAt: Date
    var createdBy: String
    var comment: String?
    var document: ConfigValue?

    init(_ version: ConfigVersion, withDocument: Bool = false) {
        self.version = version.id
        active = version.isActive
        createdAt = version.createdAt
        createdBy = version.createdBy
        comment = version.comment
        document = withDocument ? version.document : nil
    }
}

struct ChangeSummary: Encodable {
    var key: String
    var change: String
    var before: ConfigValue?
    var after: ConfigValue?

    init(_ change: ConfigChange) {
        key = change.key
        self.change = change.kind.rawValue
        before = change.before
        after = change.after
    }
}

extension AdminOptions {
    func remoteConfig() throws -> RemoteConfigService {
        RemoteConfigService(database: try openDatabase(), now: Date.init)
    }

    func promos() throws -> PromoService {
        PromoService(database: try openDatabase(), now: Date.init)
    }

    /// Prints `value` as JSON with `--json`, else the sentence or document `text` makes.
    func print(_ value: some Encodable, text: () -> String) throws {
        if json {
            try print(value, table: TextTable(columns: [], rows: []))
        } else {
            Swift.print(text())
        }
    }
}
