import Crypto
import Foundation

/// Who a configuration rule is for. Every field given must hold; a field left out holds for
/// everyone.
public struct ConfigCondition: Sendable {
    var platform: ConfigClient.Platform?
    var appVersion: AppVersionRange?
    /// Language tags: `uk` holds for `uk` and `uk-UA`, `uk-UA` only for `uk-UA`.
    var locales: [String]?
    /// ISO 3166 regions, read from the client's locale (`uk-UA` → `UA`).
    var countries: [String]?
    var rollout: Rollout?

    /// A stable slice of signed-in users: those whose bucket in `experiment` lies in
    /// `from ..< to` (percent). Slices of one experiment that do not overlap are A/B groups.
    struct Rollout: Sendable {
        var experiment: String
        var from: Double
        var to: Double
    }

    /// Reads a `when` object the validator accepted.
    init?(_ value: ConfigValue) {
        guard let members = value.members else { return nil }
        platform = members["platform"]?.string.flatMap(ConfigClient.Platform.init)
        appVersion = members["appVersion"]?.string.flatMap(AppVersionRange.init)
        locales = members["locale"]?.elements?.compactMap(\.string)
        countries = members["country"]?.elements?.compactMap(\.string)
        rollout = members["rollout"].flatMap { rollout in
            rollout["experiment"]?.string.map {
                Rollout(experiment: $0, from: rollout["from"]?.number ?? 0, to: rollout["to"]?.number ?? 0)
            }
        }
    }

    func holds(for client: ConfigClient) -> Bool {
        if let platform, platform != client.platform { return false }
        if let appVersion, !(client.appVersion.map(appVersion.contains) ?? false) { return false }
        if let locales, !locales.contains(where: { client.matches(locale: $0) }) { return false }
        if let countries, !(client.country.map(countries.contains) ?? false) { return false }
        if let rollout {
            // Anonymous clients get the default: a slice needs someone to be stable for.
            guard let user = client.userId else { return false }
            let bucket = Self.bucket(of: user, in: rollout.experiment)
            return rollout.from <= bucket && bucket < rollout.to
        }
        return true
    }

    /// Where a user falls in an experiment, in `0 ..< 100` by steps of 0.01: a hash of the
    /// experiment and the user id, so it stays put across calls and differs per experiment.
    static func bucket(of userId: String, in experiment: String) -> Double {
        let digest = SHA256.hash(data: Data((experiment + ":" + userId).utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(prefix % 10_000) / 100
    }
}

/// The client asking for its configuration.
public struct ConfigClient: Sendable {
    /// The mobile platforms a rule can target.
    public enum Platform: String, Sendable {
        case ios, android
    }

    /// The client's platform; nil when it did not say.
    public var platform: Platform?
    /// The app version the client runs; nil when unknown.
    public var appVersion: AppVersion?
    /// A language tag as the client sent it (`uk-UA`), or `nil`.
    public var locale: String?
    /// Signed-in user, for rollouts; `nil` for anonymous clients.
    public var userId: String?

    /// Describes the client asking.
    public init(platform: Platform?, appVersion: AppVersion?, locale: String?, userId: String?) {
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
        self.userId = userId
    }

    var country: String? {
        locale.flatMap { tag in tag.split(separator: "-").dropFirst().first { $0.count == 2 }.map { $0.uppercased() } }
    }

    func matches(locale rule: String) -> Bool {
        guard let locale = locale?.lowercased() else { return false }
        let rule = rule.lowercased()
        return locale == rule || locale.hasPrefix(rule + "-")
    }
}
