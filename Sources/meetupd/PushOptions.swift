import ArgumentParser
import MeetCore
import MeetServer

/// The push flags of `meetupd serve` (`docs/notifications.md`).
struct PushOptions: ParsableArguments {
    @Option(help: "The iOS app's bundle id, sent as apns-topic. [env: MEETUPD_APNS_TOPIC] (default: org.example.meetup)")
    var apnsTopic: String?

    @Option(help: "Attempts before a push is given up. [env: MEETUPD_PUSH_MAX_ATTEMPTS] (default: 8)")
    var pushMaxAttempts: Int?

    @Option(help: "Seconds to wait after a push's first failure; doubled per attempt up to an hour. [env: MEETUPD_PUSH_RETRY_BASE] (default: 2)")
    var pushRetryBase: Double?

    func resolved() throws -> PushSettings {
        var settings = PushSettings()
        if let topic = CommonOptions.setting(apnsTopic, "MEETUPD_APNS_TOPIC") {
            guard !topic.isEmpty, !topic.contains(where: { $0.isWhitespace }) else {
                throw ValidationError("The APNs topic must be a bundle id such as org.example.meetup, not '\(topic)'.")
            }
            settings.apnsTopic = topic
        }
        if let attempts = try Self.number(pushMaxAttempts, "MEETUPD_PUSH_MAX_ATTEMPTS", as: Int.self) {
            guard (1...100).contains(attempts) else { throw ValidationError("Push attempts must be between 1 and 100, not \(attempts).") }
            settings.retry.maximumAttempts = attempts
        }
        if let base = try Self.number(pushRetryBase, "MEETUPD_PUSH_RETRY_BASE", as: Double.self) {
            guard base > 0, base <= settings.retry.maximumDelay else {
                throw ValidationError("The push retry base must be between 0 and 3600 seconds, not \(base).")
            }
            settings.retry.baseDelay = base
        }
        return settings
    }

    /// A number from its flag, else from its environment variable.
    private static func number<Number: LosslessStringConvertible>(_ flag: Number?, _ variable: String, as: Number.Type) throws -> Number? {
        if let flag { return flag }
        guard let text = CommonOptions.setting(nil, variable) else { return nil }
        guard let value = Number(text) else { throw ValidationError("\(variable) must be a number, not '\(text)'.") }
        return value
    }
}
