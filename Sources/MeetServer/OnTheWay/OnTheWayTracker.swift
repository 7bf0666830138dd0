import Foundation
import MeetCore
import NIOCore
import Stomp
import Synchronization

/// Members on the way, live (docs/chat.md "Members on the way"). The ``OnTheWayBoard`` lives on
/// one event loop, so every change applies in the order it happened, and each change goes to
/// `/topic/meetings.{id}.locations` numbered by `location-seq`, so that a new subscriber's
/// snapshot and the live updates join with no gap and no repeat. Positions stay in memory:
/// nothing of them is ever written to the database or a log.
///
/// With several nodes, each node's board holds the members who report through it; their
/// changes also go to the relay (``LiveRelay``), and each node keeps the other nodes' members
/// beside its board (``mirror(_:in:)``), numbered by its own `location-seq`, until they stop
/// or fall silent for ``remoteSilence`` (their node went away).
final class OnTheWayTracker: Sendable {
    static let positionHeader = "location-seq"
    /// How long another node's member on the way stays on the map without news.
    static let remoteSilence: TimeInterval = 600

    private struct State {
        var board: OnTheWayBoard
        /// Starts at 1: a snapshot taken before any change is numbered 1, the first change 2.
        var sequence: Int64 = 1
        weak var broker: StompBroker?
        var live: LiveRelay?
        /// Members reporting through other nodes: meeting → user → position.
        var remote: [String: [String: OnTheWayBoard.Position]] = [:]
        /// Recent departures from meetings (``depart(_:from:)``): meeting → user → the mark
        /// it took and when, kept for ``departureMemory``.
        var departed: [String: [String: (mark: UInt64, at: Date)]] = [:]
    }

    /// How long a departure's mark is kept: far longer than a position's read takes.
    static let departureMemory: TimeInterval = 60

    let eventLoop: any EventLoop
    let now: @Sendable () -> Date
    private let state: NIOLoopBoundBox<State>
    private let sweep = Mutex<RepeatedTask?>(nil)
    private let departures = Atomic<UInt64>(0)

    /// How many departures this node has heard of. A position taken with the mark read before
    /// its membership check is refused if its sender departed after the mark: either the check
    /// saw the leave, or the departure came after it and its mark is larger.
    var departureMark: UInt64 { departures.load(ordering: .acquiring) }

    /// A tracker whose expiries (the window's end, lost connections) are checked every `sweepEvery`.
    init(policy: LocationSharingPolicy, eventLoop: any EventLoop, now: @escaping @Sendable () -> Date,
         sweepEvery: TimeAmount = .seconds(1)) {
        self.eventLoop = eventLoop
        self.now = now
        state = .makeBoxSendingValue(State(board: OnTheWayBoard(policy: policy)), eventLoop: eventLoop)
        let task = eventLoop.scheduleRepeatedTask(initialDelay: sweepEvery, delay: sweepEvery) { [weak self] _ in self?.expire() }
        sweep.withLock { $0 = task }
    }

    deinit {
        sweep.withLock { $0?.cancel() }
    }

    static func topic(_ meetingId: String) -> String { "/topic/meetings.\(meetingId).locations" }

    /// Publishes through `broker` (and `live`, to the other nodes) and follows its sessions: a
    /// member whose connection drops stops sharing after the disconnect grace unless they report
    /// again.
    func attach(to broker: StompBroker, live: LiveRelay) {
        eventLoop.execute {
            self.state.value.broker = broker
            self.state.value.live = live
        }
        broker.onSessionChange { [weak self] change in
            guard case .disconnected(_, let session) = change, let self else { return }
            let time = now()
            eventLoop.execute { self.state.value.board.sessionEnded(session, at: time) }
        }
    }

    /// Takes a member's position and tells the meeting's subscribers; completes once it has.
    /// Refused (`meeting.notMember`) if they departed from the meeting after `mark`.
    func share(_ fix: PositionFix, by userId: String, session: String, in meetingId: String,
               heading destination: MeetingDestination, unlessDepartedAfter mark: UInt64) -> EventLoopFuture<Void> {
        eventLoop.submit {
            if let departure = self.state.value.departed[meetingId]?[userId], departure.mark > mark { throw ChatRevocation.refusal }
            let position = try self.state.value.board.share(fix, by: userId, session: session, in: meetingId, heading: destination)
            self.publish(OnTheWayBody(position), in: meetingId)
        }
    }

    /// Ends a member's sharing at their asking; completes once the meeting's subscribers have
    /// been told.
    func stop(_ userId: String, in meetingId: String) -> EventLoopFuture<Void> {
        eventLoop.submit { self.end(userId, in: meetingId) }
    }

    /// Ends a member's sharing because they no longer belong to the meeting, and remembers it
    /// against a position whose membership was checked before (``departureMark``).
    func depart(_ userId: String, from meetingId: String) {
        eventLoop.execute {
            let mark = self.departures.wrappingAdd(1, ordering: .releasing).newValue
            self.state.value.departed[meetingId, default: [:]][userId] = (mark, self.now())
            self.end(userId, in: meetingId)
        }
    }

    private func end(_ userId: String, in meetingId: String) {
        if state.value.board.stop(userId, in: meetingId) { publish(.stopped(userId), in: meetingId) }
    }

    /// Ends all of a user's sharing at once (their sign-in ended everywhere: a ban).
    func stopAll(of userId: String) {
        eventLoop.execute {
            for meetingId in self.state.value.board.stopAll(of: userId) { self.publish(.stopped(userId), in: meetingId) }
        }
    }

    /// Takes a change another node published for its own member, and tells this node's
    /// subscribers.
    func mirror(_ body: OnTheWayBody, in meetingId: String) {
        eventLoop.execute {
            switch body {
            case .position(let position):
                self.state.value.remote[meetingId, default: [:]][position.userId] = position
            case .stopped(let userId):
                guard self.state.value.remote[meetingId]?.removeValue(forKey: userId) != nil else { return }
                if self.state.value.remote[meetingId]?.isEmpty == true { self.state.value.remote[meetingId] = nil }
            }
            self.publish(body, in: meetingId, relayed: true)
        }
    }

    private func expire() {
        let time = now()
        if !state.value.departed.isEmpty {
            state.value.departed = state.value.departed.compactMapValues { users in
                let recent = users.filter { time.timeIntervalSince($0.value.at) < Self.departureMemory }
                return recent.isEmpty ? nil : recent
            }
        }
        if !state.value.board.isEmpty {
            for ended in state.value.board.expire(at: time) { publish(.stopped(ended.userId), in: ended.meetingId) }
        }
        for (meetingId, positions) in state.value.remote {
            for (userId, position) in positions where time.timeIntervalSince(position.updatedAt) >= Self.remoteSilence {
                mirror(.stopped(userId), in: meetingId)
            }
        }
    }

    /// Tells the meeting's subscribers here, and the other nodes' unless it came from them.
    private func publish(_ body: OnTheWayBody, in meetingId: String, relayed: Bool = false) {
        state.value.sequence += 1
        guard let broker = state.value.broker, let bytes = try? body.json() else { return }
        let headers = Self.headers(state.value.sequence)
        if relayed {
            broker.publish(to: Self.topic(meetingId), headers: headers, body: bytes)
        } else {
            state.value.live?.publish(to: Self.topic(meetingId), headers: headers, body: bytes, on: broker)
        }
    }

    private static func headers(_ sequence: Int64) -> StompHeaders {
        ["content-type": "application/json", positionHeader: String(sequence)]
    }

    /// The members on the way as they stand, numbered at the current `location-seq`: what a new
    /// `/topic/meetings.{id}.locations` subscription starts with.
    func snapshot(of meetingId: String) -> StompCatchUp {
        StompCatchUp(positionHeader: Self.positionHeader, after: 0) { [self] after in
            guard after == 0 else { return [] }
            return try await eventLoop.submit {
                let state = self.state.value
                let local = state.board.positions(in: meetingId)
                let others = state.remote[meetingId]?.values.filter { position in !local.contains { $0.userId == position.userId } } ?? []
                return try (local + others).sorted { $0.userId < $1.userId }.map { position in
                    StompCatchUp.Message(headers: Self.headers(state.sequence), body: try OnTheWayBody(position).json(),
                                         position: state.sequence)
                }
            }.get()
        }
    }
}
