import ArgumentParser
import MeetCore

/// How many account mails (confirmations, password resets) may go out per hour, per address
/// mailed and per client address asking: what keeps the service from flooding an inbox.
struct MailLimitOptions: ParsableArguments {
    @Option(help: "Account mails per hour to one e-mail address. [env: MEETUPD_MAIL_PER_ADDRESS] (default: 3)")
    var mailPerAddress: Int?

    @Option(help: "Account mails per hour asked for from one client IP address. [env: MEETUPD_MAIL_PER_CLIENT] (default: 20)")
    var mailPerClient: Int?

    /// The throttle these settings describe; a setting that is not a positive number is refused.
    func resolved() throws -> MailThrottle {
        var throttle = MailThrottle()
        throttle.perRecipient = try Self.count(mailPerAddress, "MEETUPD_MAIL_PER_ADDRESS") ?? throttle.perRecipient
        throttle.perClient = try Self.count(mailPerClient, "MEETUPD_MAIL_PER_CLIENT") ?? throttle.perClient
        return throttle
    }

    private static func count(_ flag: Int?, _ variable: String) throws -> Int? {
        guard let text = flag.map(String.init) ?? CommonOptions.setting(nil, variable) else { return nil }
        guard let value = Int(text), value > 0 else { throw ValidationError("\(variable) must be a positive number, not '\(text)'.") }
        return value
    }
}
