import Foundation

/// When members may share their position on the way to a meeting, how long a lost connection
/// keeps them on the map, how often they may report, and how their ETA is estimated
/// (`--location-lead`, `--location-grace`, `--location-disconnect-grace`).
public struct LocationSharingPolicy: Sendable, Equatable {
    /// How long before the start sharing may begin.
    public var lead: TimeInterval = 2 * 3600
    /// How long after the start sharing goes on (late members are still on the way).
    public var grace: TimeInterval = 30 * 60
    /// How long a member whose connection dropped stays on the map before their sharing ends:
    /// a phone that reconnects sooner and reports again carries on.
    public var disconnectGrace: TimeInterval = 60
    /// Positions one user may send at once before the steady rate applies.
    public var burst = 5
    /// Steady positions per second one user may send.
    public var perSecond = 1.0
    /// How distance becomes an ETA.
    public var estimates = ArrivalEstimator.Settings()

    /// The defaults: from two hours before the start to half an hour after it.
    public init() {}

    /// When sharing opens and closes for a meeting that starts at `startsAt`.
    public func window(startingAt startsAt: Date) -> Range<Date> {
        startsAt.addingTimeInterval(-lead)..<startsAt.addingTimeInterval(grace)
    }
}
