import ArgumentParser
import Foundation
import MeetServer

/// Where `meetupd serve` sends its mail: `.eml` files in the maildrop (the default, nothing
/// leaves the machine) or an SMTP server.
struct MailTransportOptions: ParsableArguments {
    @Option(help: "maildrop (.eml files in <data>/maildrop) or smtp. [env: MEETUPD_MAIL_TRANSPORT] (default: maildrop)")
    var mailTransport: String?

    @Option(help: "The SMTP server, for --mail-transport smtp. [env: MEETUPD_SMTP_HOST]")
    var smtpHost: String?

    @Option(help: "The SMTP server's port. [env: MEETUPD_SMTP_PORT] (default: 587)")
    var smtpPort: Int?

    @Flag(help: "Upgrade SMTP connections with STARTTLS, which the server must offer. [env: MEETUPD_SMTP_STARTTLS=1]")
    var smtpStarttls = false

    @Option(help: "Sign in to the SMTP server (AUTH PLAIN, or LOGIN) as this user; the password from MEETUPD_SMTP_PASSWORD. [env: MEETUPD_SMTP_USERNAME]")
    var smtpUsername: String?

    @Option(help: "PEM certificates to trust besides the system's for STARTTLS. [env: MEETUPD_SMTP_CA_FILE]")
    var smtpCaFile: String?

    @Option(help: "Attempts before a notification mail is given up; retries back off like pushes (--push-retry-base), up to an hour apart. [env: MEETUPD_MAIL_MAX_ATTEMPTS] (default: 20, about seven hours)")
    var mailMaxAttempts: Int?

    /// How many attempts a notification mail gets, if set.
    func resolvedMaxAttempts() throws -> Int? {
        guard let attempts = try CommonOptions.number(mailMaxAttempts, "MEETUPD_MAIL_MAX_ATTEMPTS", as: Int.self) else { return nil }
        guard (1...100).contains(attempts) else { throw ValidationError("Mail attempts must be between 1 and 100, not \(attempts).") }
        return attempts
    }

    /// The SMTP settings, or nil for the maildrop.
    func resolved() throws -> SMTPSettings? {
        switch CommonOptions.setting(mailTransport, "MEETUPD_MAIL_TRANSPORT") ?? "maildrop" {
        case "maildrop":
            return nil
        case "smtp":
            break
        case let other:
            throw ValidationError("The mail transport must be maildrop or smtp, not '\(other)'.")
        }
        guard let host = CommonOptions.setting(smtpHost, "MEETUPD_SMTP_HOST") else {
            throw ValidationError("--mail-transport smtp needs --smtp-host.")
        }
        var settings = SMTPSettings(host: host)
        if let text = CommonOptions.setting(smtpPort.map(String.init), "MEETUPD_SMTP_PORT") {
            guard let port = Int(text), (1...65535).contains(port) else {
                throw ValidationError("The SMTP port must be between 1 and 65535, not '\(text)'.")
            }
            settings.port = port
        }
        settings.startTLS = smtpStarttls || CommonOptions.setting(nil, "MEETUPD_SMTP_STARTTLS") == "1"
        if let username = CommonOptions.setting(smtpUsername, "MEETUPD_SMTP_USERNAME") {
            // Never a flag: a password on the command line shows in the process list.
            guard let password = CommonOptions.setting(nil, "MEETUPD_SMTP_PASSWORD") else {
                throw ValidationError("--smtp-username needs the password in MEETUPD_SMTP_PASSWORD.")
            }
            settings.credentials = .init(username: username, password: password)
        }
        if let file = CommonOptions.setting(smtpCaFile, "MEETUPD_SMTP_CA_FILE") {
            guard FileManager.default.isReadableFile(atPath: file) else { throw ValidationError("Cannot read \(file).") }
            settings.trustedCertificatesFile = file
        }
        return settings
    }
}
