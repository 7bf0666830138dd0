import ArgumentParser
import Foundation
import Logging
import MeetServer

/// Options every command shares. A flag wins over its `MEETUPD_*` variable, which wins over
/// the default.
struct CommonOptions: ParsableArguments {
    @Option(help: "Directory for the database, media, mail and push drops. [env: MEETUPD_DATA_DIR] (default: ./meetupd-data)")
    var dataDir: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: MEETUPD_LOG_LEVEL] (default: info)")
    var logLevel: String?

    /// The value of a flag, else of its environment variable.
    static func setting(_ flag: String?, _ variable: String) -> String? {
        flag ?? ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A number from a flag, else from its environment variable.
    static func number<Number: LosslessStringConvertible>(_ flag: Number?, _ variable: String, as: Number.Type) throws -> Number? {
        if let flag { return flag }
        guard let text = setting(nil, variable) else { return nil }
        guard let value = Number(text) else { throw ValidationError("\(variable) must be a number, not '\(text)'.") }
        return value
    }

    func resolvedDataDirectory() -> String {
        Self.setting(dataDir, "MEETUPD_DATA_DIR") ?? ServerConfiguration().dataDirectory
    }

    func resolvedLogLevel() throws -> Logger.Level {
        guard let name = Self.setting(logLevel, "MEETUPD_LOG_LEVEL") else { return .info }
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw ValidationError("Unknown log level '\(name)'; use one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return level
    }

    /// Logs go to stderr, at the chosen level.
    func bootstrapLogging() throws {
        let level = try resolvedLogLevel()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
