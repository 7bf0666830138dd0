import ArgumentParser
import MeetCore

/// `--location-lead`, `--location-grace` and `--location-disconnect-grace`: when members may
/// share their way to a meeting, and how long a dropped connection keeps them on the map.
struct LocationSharingOptions: ParsableArguments {
    @Option(help: "Seconds before a meeting's start from which members may share their way to it. [env: MEETUPD_LOCATION_LEAD] (default: 7200)")
    var locationLead: Double?

    @Option(help: "Seconds after a meeting's start at which sharing ends for everyone. [env: MEETUPD_LOCATION_GRACE] (default: 1800)")
    var locationGrace: Double?

    @Option(help: "Seconds a member whose connection dropped stays on the map before their sharing ends. [env: MEETUPD_LOCATION_DISCONNECT_GRACE] (default: 60)")
    var locationDisconnectGrace: Double?

    func resolved() throws -> LocationSharingPolicy {
        var policy = LocationSharingPolicy()
        if let seconds = try Self.seconds(locationLead, "MEETUPD_LOCATION_LEAD") { policy.lead = seconds }
        if let seconds = try Self.seconds(locationGrace, "MEETUPD_LOCATION_GRACE") { policy.grace = seconds }
        if let seconds = try Self.seconds(locationDisconnectGrace, "MEETUPD_LOCATION_DISCONNECT_GRACE") { policy.disconnectGrace = seconds }
        return policy
    }

    /// Seconds from a flag, else its environment variable (0 to 7 days); `nil` when neither is set.
    private static func seconds(_ flag: Double?, _ variable: String) throws -> Double? {
        guard let text = CommonOptions.setting(flag.map { String($0) }, variable) else { return nil }
        guard let value = Double(text), value >= 0, value <= 7 * 86_400 else {
            throw ValidationError("\(variable) must be a number of seconds from 0 to 604800, not '\(text)'.")
        }
        return value
    }
}
