import ArgumentParser
import Foundation
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

    @Option(help: "Seconds a chat message's push waits for the room's next messages, to go out as one. [env: MEETUPD_CHAT_PUSH_DELAY] (default: 5)")
    var chatPushDelay: Double?

    @Option(help: "APNs signing key (.p8); with --apns-key-id and --apns-team-id, pushes to iPhones go to APNs instead of the pushdrop. [env: MEETUPD_APNS_KEY_FILE]")
    var apnsKeyFile: String?

    @Option(help: "The APNs key's id. [env: MEETUPD_APNS_KEY_ID]")
    var apnsKeyId: String?

    @Option(help: "The Apple developer team id. [env: MEETUPD_APNS_TEAM_ID]")
    var apnsTeamId: String?

    @Option(help: "Send every APNs push to this base URL instead of Apple's production and sandbox hosts (a test service). [env: MEETUPD_APNS_URL]")
    var apnsUrl: String?

    @Option(help: "FCM service-account JSON file; pushes to Android devices go to FCM instead of the pushdrop. [env: MEETUPD_FCM_SERVICE_ACCOUNT]")
    var fcmServiceAccount: String?

    @Option(help: "FCM's base URL (a test service). [env: MEETUPD_FCM_URL] (default: https://fcm.googleapis.com)")
    var fcmUrl: String?

    @Option(help: "PEM certificates to trust besides the system's on the push services' connections. [env: MEETUPD_PUSH_CA_FILE]")
    var pushCaFile: String?

    func resolved() throws -> PushSettings {
        var settings = PushSettings()
        settings.apns = try apns()
        settings.fcm = try fcm()
        settings.trustedCertificatesFile = try CommonOptions.setting(pushCaFile, "MEETUPD_PUSH_CA_FILE").map { try Self.readable($0) }
        if let topic = CommonOptions.setting(apnsTopic, "MEETUPD_APNS_TOPIC") {
            guard !topic.isEmpty, !topic.contains(where: { $0.isWhitespace }) else {
                throw ValidationError("The APNs topic must be a bundle id such as org.example.meetup, not '\(topic)'.")
            }
            settings.apnsTopic = topic
        }
        if let attempts = try CommonOptions.number(pushMaxAttempts, "MEETUPD_PUSH_MAX_ATTEMPTS", as: Int.self) {
            guard (1...100).contains(attempts) else { throw ValidationError("Push attempts must be between 1 and 100, not \(attempts).") }
            settings.retry.maximumAttempts = attempts
        }
        if let base = try CommonOptions.number(pushRetryBase, "MEETUPD_PUSH_RETRY_BASE", as: Double.self) {
            guard base > 0, base <= settings.retry.maximumDelay else {
                throw ValidationError("The push retry base must be between 0 and 3600 seconds, not \(base).")
            }
            settings.retry.baseDelay = base
        }
        if let delay = try CommonOptions.number(chatPushDelay, "MEETUPD_CHAT_PUSH_DELAY", as: Double.self) {
            guard (0...3600).contains(delay) else { throw ValidationError("The chat push delay must be between 0 and 3600 seconds, not \(delay).") }
            settings.chatDelay = delay
        }
        return settings
    }

    private func apns() throws -> PushSettings.APNs? {
        let file = CommonOptions.setting(apnsKeyFile, "MEETUPD_APNS_KEY_FILE")
        let keyId = CommonOptions.setting(apnsKeyId, "MEETUPD_APNS_KEY_ID")
        let teamId = CommonOptions.setting(apnsTeamId, "MEETUPD_APNS_TEAM_ID")
        guard file != nil || keyId != nil || teamId != nil else { return nil }
        guard let file, let keyId, let teamId else {
            throw ValidationError("APNs needs all of --apns-key-file, --apns-key-id and --apns-team-id.")
        }
        let key: APNsSigningKey
        do {
            key = try APNsSigningKey(pem: String(contentsOfFile: try Self.readable(file), encoding: .utf8), keyId: keyId, teamId: teamId)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(file) is not an APNs signing key (.p8, an EC P-256 private key in PEM).")
        }
        return PushSettings.APNs(key: key, url: try Self.url(CommonOptions.setting(apnsUrl, "MEETUPD_APNS_URL"), "APNs"))
    }

    private func fcm() throws -> PushSettings.FCM? {
        guard let file = CommonOptions.setting(fcmServiceAccount, "MEETUPD_FCM_SERVICE_ACCOUNT") else { return nil }
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(json: Data(contentsOf: URL(fileURLWithPath: try Self.readable(file))))
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(file) is not an FCM service-account JSON file (project_id, client_email, private_key, token_uri).")
        }
        return PushSettings.FCM(account: account, url: try Self.url(CommonOptions.setting(fcmUrl, "MEETUPD_FCM_URL"), "FCM"))
    }

    private static func readable(_ path: String) throws -> String {
        guard FileManager.default.isReadableFile(atPath: path) else { throw ValidationError("Cannot read \(path).") }
        return path
    }

    /// An https base URL without a trailing slash.
    private static func url(_ text: String?, _ service: String) throws -> String? {
        guard let text else { return nil }
        guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
            throw ValidationError("The \(service) URL must be an https URL, not '\(text)'.")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// A number from its flag, else from its environment variable.
}
