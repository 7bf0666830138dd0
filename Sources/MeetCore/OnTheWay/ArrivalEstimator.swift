import Foundation

/// How far one member on the way is from the meeting's place, and when they will be there:
/// the ETA comes from their recent speed (the phone's reading, else the way covered between
/// two fixes), with a walking pace while they are not seen moving, and both the speed and the
/// ETA are smoothed exponentially over time, so the others' maps show a countdown that glides
/// rather than one that jumps with every GPS fix.
public struct ArrivalEstimator: Sendable {
    /// The tunables; the defaults suit people walking or riding through a city.
    public struct Settings: Sendable, Equatable {
        /// Metres per second assumed while the recent speed is unknown or below ``movingSpeed``.
        public var walkingSpeed = 1.4
        /// Below this (metres per second) a member counts as standing, not moving.
        public var movingSpeed = 0.5
        /// Seconds over which a new speed reading takes about two thirds of the weight.
        public var speedSmoothing: TimeInterval = 20
        /// Seconds over which a new ETA takes about two thirds of the weight.
        public var etaSmoothing: TimeInterval = 30
        /// Within this many metres of the place a member has arrived: the ETA is 0 at once.
        public var arrivalRadius = 50.0

        /// The defaults.
        public init() {}
    }

    /// Where a member stands towards the place after a fix.
    public struct Estimate: Sendable, Equatable {
        /// Straight-line metres from the member to the place (not along the streets).
        public var distanceMeters: Double
        /// Smoothed seconds until they arrive; 0 once they are within the arrival radius.
        public var etaSeconds: Double
    }

    /// The meeting's place the member is heading to.
    public let place: Coordinate
    /// The tunables this estimator was made with.
    public let settings: Settings
    private var previous: PositionFix?
    /// Smoothed metres per second; nil until a speed is known.
    private var speed: Double?
    /// Smoothed seconds to arrival, as of `previous.at`.
    private var eta: Double?

    /// An estimator for a member heading to `place`, with no fix yet.
    public init(place: Coordinate, settings: Settings = Settings()) {
        self.place = place
        self.settings = settings
    }

    /// Takes the member's next fix and answers the distance and the smoothed ETA.
    public mutating func update(with fix: PositionFix) -> Estimate {
        let distance = fix.coordinate.distanceKm(to: place) * 1000
        let elapsed = previous.map { max(0, fix.at.timeIntervalSince($0.at)) } ?? 0
        if let measured = fix.speed ?? covered(since: previous, to: fix, in: elapsed) {
            speed = Self.blend(speed, measured, after: elapsed, over: settings.speedSmoothing)
        }
        let pace = speed.flatMap { $0 >= settings.movingSpeed ? $0 : nil } ?? settings.walkingSpeed
        if distance <= settings.arrivalRadius {
            eta = 0
        } else {
            // The last ETA counted down by the time since, blended with what this fix says.
            eta = Self.blend(eta.map { max(0, $0 - elapsed) }, distance / pace, after: elapsed, over: settings.etaSmoothing)
        }
        previous = fix
        return Estimate(distanceMeters: distance, etaSeconds: eta ?? 0)
    }

    /// The speed the way between two fixes shows, or nil when they are too close in time to
    /// tell; a move within the fixes' own uncertainty is GPS jitter, read as standing still.
    private func covered(since previous: PositionFix?, to fix: PositionFix, in elapsed: TimeInterval) -> Double? {
        guard let previous, elapsed >= 1 else { return nil }
        let moved = previous.coordinate.distanceKm(to: fix.coordinate) * 1000
        return moved > max(previous.accuracy, fix.accuracy) ? moved / elapsed : 0
    }

    /// Exponential smoothing over time: the new value's weight grows with the time since the
    /// last one, so the result does not depend on how often a phone reports.
    static func blend(_ old: Double?, _ new: Double, after elapsed: TimeInterval, over timeConstant: TimeInterval) -> Double {
        guard let old else { return new }
        let weight = 1 - exp(-elapsed / timeConstant)
        return old + weight * (new - old)
    }
}
