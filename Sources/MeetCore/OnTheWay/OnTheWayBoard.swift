import Foundation

/// Who is on the way to which meeting and where they are: the state behind
/// `/topic/meetings.{id}.locations` (docs/chat.md "Members on the way"). It lives in memory
/// only, never in the database: positions are gone when sharing stops or the server restarts.
/// A value with no clock of its own: every change takes its time, so tests drive it with any
/// clock, and the server keeps it on one event loop (``OnTheWayTracker`` in MeetServer).
public struct OnTheWayBoard: Sendable {
    /// What the others see of one member on the way.
    public struct Position: Sendable, Equatable {
        /// The member on the way.
        public var userId: String
        /// Where their phone last reported them.
        public var coordinate: Coordinate
        /// Straight-line metres to the meeting's place, rounded.
        public var distanceMeters: Int
        /// Smoothed seconds until they arrive, rounded; 0 once they have arrived.
        public var etaSeconds: Int
        /// When the server received the position this is made from (its clock).
        public var updatedAt: Date

        /// A position as another node's board made it (it came over the relay).
        public init(userId: String, coordinate: Coordinate, distanceMeters: Int, etaSeconds: Int, updatedAt: Date) {
            self.userId = userId
            self.coordinate = coordinate
            self.distanceMeters = distanceMeters
            self.etaSeconds = etaSeconds
            self.updatedAt = updatedAt
        }
    }

    /// A member's sharing that ended by itself (see ``expire(at:)``).
    public struct Ended: Sendable, Equatable {
        /// The meeting they were on the way to.
        public var meetingId: String
        /// The member whose sharing ended.
        public var userId: String
    }

    private struct Sharer {
        var estimator: ArrivalEstimator
        var position: Position
        /// The connection of the last position.
        var session: String
        /// When that connection ended, if it did and no position came since.
        var lostAt: Date?
    }

    private struct Meeting {
        var closesAt: Date
        var sharers: [String: Sharer] = [:]
    }

    /// The sharing window, grace periods, rate limit and ETA settings the board applies.
    public let policy: LocationSharingPolicy
    private var meetings: [String: Meeting] = [:]
    /// Connections that ended in the last ``inFlight`` seconds, and when: a position that was
    /// still on its way (its meeting being read) when its connection closed counts as lost.
    private var endedSessions: [String: Date] = [:]
    /// Longer than any position takes from its SEND to the board.
    static let inFlight: TimeInterval = 60
    /// Per user, over all meetings (a token bucket, as for chat posts).
    private let rateLimit: ChatRateLimit

    /// An empty board.
    public init(policy: LocationSharingPolicy = LocationSharingPolicy()) {
        self.policy = policy
        rateLimit = ChatRateLimit(burst: policy.burst, perSecond: policy.perSecond)
    }

    /// Whether nobody is sharing and nothing waits to expire.
    public var isEmpty: Bool { meetings.isEmpty && endedSessions.isEmpty }

    /// Takes a member's position (the first one opts them in) and answers what the others see.
    /// - Throws: `locationSharing.rateLimited` (429, `retryAfter`), `meeting.cancelled`,
    ///   `locationSharing.noPlace` (an online meeting), `locationSharing.notOpen` (before the
    ///   window, with `retryAfter` seconds until it opens, or after it).
    public mutating func share(_ fix: PositionFix, by userId: String, session: String, in meetingId: String,
                               heading destination: MeetingDestination) throws -> Position {
        if let wait = rateLimit.take(user: userId, room: "location", now: fix.at) {
            let seconds = String(Int(wait.rounded(.up)))
            throw MeetError("locationSharing.rateLimited", status: 429, arguments: ["retryAfter": seconds], headers: ["Retry-After": seconds])
        }
        guard !destination.cancelled else { throw MeetError.meetingCancelled }
        guard let place = destination.place else { throw MeetError("locationSharing.noPlace", status: 409) }
        let window = policy.window(startingAt: destination.startsAt)
        guard window.contains(fix.at) else {
            let opensIn = window.lowerBound.timeIntervalSince(fix.at)
            throw MeetError("locationSharing.notOpen", status: 409, arguments: opensIn > 0 ? ["retryAfter": String(Int(opensIn.rounded(.up)))] : [:])
        }
        var meeting = meetings[meetingId] ?? Meeting(closesAt: window.upperBound)
        meeting.closesAt = window.upperBound
        var estimator = meeting.sharers[userId]?.estimator ?? ArrivalEstimator(place: place, settings: policy.estimates)
        if estimator.place != place { estimator = ArrivalEstimator(place: place, settings: policy.estimates) }
        let estimate = estimator.update(with: fix)
        let position = Position(
            userId: userId, coordinate: fix.coordinate, distanceMeters: Int(estimate.distanceMeters.rounded()),
            etaSeconds: Int(estimate.etaSeconds.rounded()), updatedAt: fix.at)
        meeting.sharers[userId] = Sharer(
            estimator: estimator, position: position, session: session, lostAt: endedSessions[session])
        meetings[meetingId] = meeting
        return position
    }

    /// Ends a member's sharing (they asked, left, were removed); answers whether they shared.
    @discardableResult
    public mutating func stop(_ userId: String, in meetingId: String) -> Bool {
        guard meetings[meetingId]?.sharers.removeValue(forKey: userId) != nil else { return false }
        if meetings[meetingId]?.sharers.isEmpty == true { meetings[meetingId] = nil }
        return true
    }

    /// Ends all of a user's sharing (their sign-in ended everywhere: a ban, a password reset);
    /// answers the meetings they were sharing in.
    public mutating func stopAll(of userId: String) -> [String] {
        let shared = meetings.filter { $0.value.sharers[userId] != nil }.keys.sorted()
        for meetingId in shared { stop(userId, in: meetingId) }
        return shared
    }

    /// A connection ended: whoever last reported through it is lost from now, and stops after
    /// the disconnect grace unless they report again.
    public mutating func sessionEnded(_ session: String, at time: Date) {
        endedSessions[session] = time
        for (meetingId, meeting) in meetings {
            for (userId, sharer) in meeting.sharers where sharer.session == session && sharer.lostAt == nil {
                meetings[meetingId]?.sharers[userId]?.lostAt = time
            }
        }
    }

    /// Ends the sharing whose meeting's window has closed, or whose connection has been lost
    /// for longer than the disconnect grace; answers who stopped.
    public mutating func expire(at time: Date) -> [Ended] {
        var ended: [Ended] = []
        for (meetingId, meeting) in meetings {
            for (userId, sharer) in meeting.sharers
            where meeting.closesAt <= time || sharer.lostAt.map({ time.timeIntervalSince($0) >= policy.disconnectGrace }) == true {
                ended.append(Ended(meetingId: meetingId, userId: userId))
            }
        }
        for end in ended { stop(end.userId, in: end.meetingId) }
        endedSessions = endedSessions.filter { time.timeIntervalSince($0.value) < Self.inFlight }
        return ended.sorted { ($0.meetingId, $0.userId) < ($1.meetingId, $1.userId) }
    }

    /// The members on the way to a meeting now, by user id.
    public func positions(in meetingId: String) -> [Position] {
        (meetings[meetingId]?.sharers.values.map(\.position) ?? []).sorted { $0.userId < $1.userId }
    }
}
