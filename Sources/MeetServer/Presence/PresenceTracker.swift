import Foundation
import MeetCore
import NIOCore
import Stomp
import Synchronization

/// Who is online, kept in memory (issue 11, docs/chat.md "Presence"). A user is `online` while
/// one of their sessions is connected and not set away, `away` while all of them are, and
/// `offline` once the last one has been gone for ``grace`` (a phone that reconnects sooner makes
/// no flap). A user who hides their presence is `offline` to everyone. Each change is sent to
/// the user's friends that are connected (read at the change, so a block counts at once), on their `/topic/presence.friends` (keyed per user
/// by the broker), numbered by `presence-seq` so that a new subscriber's snapshot and the live
/// events join with no gap and no repeat. `lastSeenAt` is written in batches
/// (``flushEvery``), never per connect.
///
/// With several nodes (docs/scaling.md) each node announces how its own users stand
/// (``onAnnounce(_:)``) and hears the others' (``heard(_:from:)``): a user's status is the
/// most present one over all nodes, so they are online while any node has them online.
final class PresenceTracker: Sendable {
    enum Status: String, Sendable, Codable, Comparable {
        case online, away, offline

        /// Online beats away beats offline, when nodes see a user differently.
        static func < (lhs: Status, rhs: Status) -> Bool {
            lhs.presence < rhs.presence
        }

        private var presence: Int {
            switch self {
            case .offline: 0
            case .away: 1
            case .online: 2
            }
        }
    }

    /// Who hears this node's statuses (the relay), in a struct: a closure kept bare in a
    /// `Mutex` would run through two more thunks after every read (docs/conventions.md, Locks).
    private struct Announcer {
        let announce: @Sendable ([NodeStatus]) -> Void
    }

    /// How a user stands on one node: what nodes tell each other.
    struct NodeStatus: Codable, Sendable, Equatable {
        var userId: String
        var status: Status
    }

    /// One connected user.
    private struct UserState {
        /// Their sessions, and whether each is set away.
        private(set) var sessions: [String: Bool] = [:]
        /// How many of them are set away: the status is read at every change, so it must not
        /// look at every session (a user may hold thousands of them, a load generator does).
        private var away = 0
        /// Loaded once when the first session connects; nil until then.
        var hidden: Bool?
        /// What the other nodes were last told of this node's sessions.
        var announced = Status.offline
        var offline: Scheduled<Void>?

        /// Their status on this node; within the grace after the last session it stays what it was.
        var status: Status {
            guard hidden == false else { return .offline }
            guard !sessions.isEmpty else { return announced }
            return away < sessions.count ? .online : .away
        }

        /// A session connected (not away).
        mutating func add(_ session: String) {
            if sessions.updateValue(false, forKey: session) == true { away -= 1 }
        }

        mutating func remove(_ session: String) {
            if sessions.removeValue(forKey: session) == true { away -= 1 }
        }

        /// A session went away or came back; nothing for one that is not connected.
        mutating func set(_ session: String, away isAway: Bool) {
            guard let was = sessions[session], was != isAway else { return }
            sessions[session] = isAway
            away += isAway ? 1 : -1
        }
    }

    /// Another node's last word on a user.
    private struct RemoteStatus {
        var status: Status
        var heardAt: ContinuousClock.Instant
    }

    private struct State {
        var users: [String: UserState] = [:]
        /// Other nodes' users that are not offline there: user → node → status.
        var remote: [String: [String: RemoteStatus]] = [:]
        /// What friends here were last told, for every user not offline.
        var published: [String: Status] = [:]
        /// Starts at 1: a snapshot taken before any event is numbered 1, and the first event 2.
        var sequence: Int64 = 1
        /// Last-seen times not yet written.
        var unsaved: [String: Date] = [:]
        /// Last-seen times of users who went offline while the server ran.
        var lastSeen: [String: Date] = [:]
    }

    static let topic = "/topic/presence.friends"
    let store: PresenceStore
    let grace: TimeAmount
    let eventLoop: any EventLoop
    private let state = Mutex(State())
    private let broker = Mutex<StompBroker?>(nil)
    private let announcer = Mutex<Announcer?>(nil)
    /// Events in the order they happened, sent one after another by one task: each reads the
    /// user's friends as they are then, so a block or a new friendship counts at once.
    private let outbox: AsyncStream<PresenceEvent>.Continuation

    init(store: PresenceStore, eventLoop: any EventLoop, grace: TimeAmount = .seconds(10), flushEvery: TimeAmount = .seconds(15)) {
        self.store = store
        self.grace = grace
        self.eventLoop = eventLoop
        let (events, outbox) = AsyncStream.makeStream(of: PresenceEvent.self)
        self.outbox = outbox
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.deliver(event)
            }
        }
        eventLoop.scheduleRepeatedTask(initialDelay: flushEvery, delay: flushEvery) { [weak self] _ in self?.flush() }
    }

    /// Follows the broker's sessions.
    func attach(to broker: StompBroker) {
        self.broker.withLock { $0 = broker }
        broker.onSessionChange { [weak self] change in
            switch change {
            case .connected(let principal, let session): self?.connected(principal.userId, session: session)
            case .disconnected(let principal, let session): self?.disconnected(principal.userId, session: session)
            }
        }
    }

    private func connected(_ userId: String, session: String) {
        func connect(_ user: inout UserState) -> Bool {
            user.offline?.cancel()
            user.offline = nil
            user.add(session)
            return user.hidden == nil && user.sessions.count == 1
        }
        // In place: a copy of the user would copy their sessions at every connect.
        let loads = state.withLock { state in connect(&state.users[userId, default: UserState()]) }
        guard loads else { return update(userId) }
        Task {
            let profile = (try? await store.profile(of: userId)) ?? (hidden: false, friends: [])
            state.withLock { state in state.users[userId]?.hidden = profile.hidden }
            update(userId)
        }
    }

    private func disconnected(_ userId: String, session: String) {
        let empty = state.withLock { state -> Bool in
            state.users[userId]?.remove(session)
            guard state.users[userId]?.sessions.isEmpty == true else { return false }
            state.users[userId]?.offline = eventLoop.scheduleTask(in: grace) { [weak self] in self?.wentOffline(userId) }
            return true
        }
        if !empty { update(userId) }
    }

    /// The grace period ran out with no session back.
    private func wentOffline(_ userId: String) {
        let now = Date()
        let (event, announcement) = state.withLock { state -> (PresenceEvent?, NodeStatus?) in
            guard let user = state.users[userId], user.sessions.isEmpty else { return (nil, nil) }
            state.users[userId] = nil
            guard user.hidden == false else { return (nil, nil) }
            state.unsaved[userId] = now
            let announcement = user.announced == .offline ? nil : NodeStatus(userId: userId, status: .offline)
            return (Self.change(of: userId, at: now, in: &state), announcement)
        }
        if let announcement { announce([announcement]) }
        if let event { send(event) }
    }

    /// The app went to the background (`away`) or came back (`online`) on one session.
    func set(_ status: Status, session: String, of userId: String) {
        state.withLock { state in
            state.users[userId]?.set(session, away: status == .away)
        }
        update(userId)
    }

    /// The user hid their presence, or showed it again.
    func setHidden(_ hidden: Bool, for userId: String) {
        state.withLock { state in
            if state.users[userId]?.hidden != nil { state.users[userId]?.hidden = hidden }
        }
        update(userId)
    }

    /// Tells the other nodes if the user's status here changed, and the friends if their
    /// status over all nodes is not what they were last told.
    private func update(_ userId: String) {
        let (event, announcement) = state.withLock { state -> (PresenceEvent?, NodeStatus?) in
            var announcement: NodeStatus?
            if var user = state.users[userId], user.hidden != nil, user.status != user.announced {
                user.announced = user.status
                state.users[userId] = user
                announcement = NodeStatus(userId: userId, status: user.status)
            }
            return (Self.change(of: userId, at: Date(), in: &state), announcement)
        }
        if let announcement { announce([announcement]) }
        if let event { send(event) }
    }

    /// The event that tells friends here of the user's status over all nodes, numbered next,
    /// when it is not what they were last told (nothing while a local user's setting loads).
    private static func change(of userId: String, at time: Date, in state: inout State) -> PresenceEvent? {
        let local = state.users[userId]
        guard local?.hidden != nil || local == nil else { return nil }
        let status = ([local?.status ?? .offline] + (state.remote[userId]?.values.map(\.status) ?? [])).max() ?? .offline
        guard status != state.published[userId] ?? .offline else { return nil }
        state.published[userId] = status == .offline ? nil : status
        let hidden = local?.hidden == true
        if status == .offline, !hidden { state.lastSeen[userId] = time }
        state.sequence += 1
        let body = PresenceBody(userId: userId, status: status.rawValue, lastSeenAt: hidden ? nil : time)
        return PresenceEvent(body: body, sequence: state.sequence)
    }

    /// Sets who hears how this node's users stand, whenever that changes (the relay).
    func onAnnounce(_ announce: @escaping @Sendable ([NodeStatus]) -> Void) {
        announcer.withLock { $0 = Announcer(announce: announce) }
    }

    private func announce(_ statuses: [NodeStatus]) {
        announcer.withLock { $0 }?.announce(statuses)
    }

    /// Every user not offline on this node: what a node announces again now and then, so that
    /// the others' word on its users does not expire.
    func localStatuses() -> [NodeStatus] {
        state.withLock { state in
            state.users.compactMap { userId, user in
                user.announced == .offline ? nil : NodeStatus(userId: userId, status: user.announced)
            }
        }
    }

    /// Takes another node's word on how its users stand, and tells friends here what changes.
    func heard(_ statuses: [NodeStatus], from node: String) {
        let now = ContinuousClock.now
        let events = state.withLock { state in
            statuses.compactMap { word -> PresenceEvent? in
                var nodes = state.remote[word.userId] ?? [:]
                nodes[node] = word.status == .offline ? nil : RemoteStatus(status: word.status, heardAt: now)
                state.remote[word.userId] = nodes.isEmpty ? nil : nodes
                return Self.change(of: word.userId, at: Date(), in: &state)
            }
        }
        events.forEach(send)
    }

    /// Forgets other nodes' word older than `age` (a node that stopped refreshing is gone).
    func forgetRemote(olderThan age: Duration) {
        let cutoff = ContinuousClock.now - age
        let events = state.withLock { state in
            let stale = state.remote.filter { $0.value.values.contains { $0.heardAt < cutoff } }.keys
            return stale.compactMap { userId -> PresenceEvent? in
                let nodes = state.remote[userId]?.filter { $0.value.heardAt >= cutoff } ?? [:]
                state.remote[userId] = nodes.isEmpty ? nil : nodes
                return Self.change(of: userId, at: Date(), in: &state)
            }
        }
        events.forEach(send)
    }

    private func send(_ event: PresenceEvent) {
        outbox.yield(event)
    }

    /// Sends one event to the user's friends who are connected now.
    private func deliver(_ event: PresenceEvent) async {
        guard let broker = broker.withLock({ $0 }), let body = try? event.body.json(),
              let friends = try? await store.profile(of: event.body.userId).friends else { return }
        let listeners = state.withLock { state in friends.filter { state.users[$0]?.sessions.isEmpty == false } }
        let headers: StompHeaders = ["content-type": "application/json", "presence-seq": String(event.sequence)]
        for friend in listeners {
            broker.send(toUser: friend, destination: Self.topic, headers: headers, body: body)
        }
    }

    /// The subscriber's friends as they stand, numbered at the current `presence-seq`: the
    /// snapshot that starts a `/topic/presence.friends` subscription.
    func snapshot(for userId: String) -> StompCatchUp {
        StompCatchUp(positionHeader: "presence-seq", after: 0) { [self] after in
            guard after == 0 else { return [] }
            let friends = try await store.friendStates(of: userId)
            return try state.withLock { state in
                let position = state.sequence
                return try friends.map { friend in
                    let (status, lastSeen) = Self.presence(of: friend, in: state)
                    let body = PresenceBody(userId: friend.userId, status: status.rawValue, lastSeenAt: lastSeen)
                    return StompCatchUp.Message(
                        headers: ["content-type": "application/json", "presence-seq": String(position)],
                        body: try body.json(), position: position)
                }
            }
        }
    }

    /// When `viewer`'s friend `userId` was last seen (now, while online or away), or nil when
    /// they are not friends or `userId` hides their presence: what the friend's profile shows.
    func lastSeen(of userId: String, seenBy viewer: String) async throws -> Date? {
        guard let friend = try await store.friendStates(of: viewer, only: userId).first else { return nil }
        return state.withLock { Self.presence(of: friend, in: $0).lastSeen }
    }

    /// A friend's status and last-seen time as their friends may know them.
    private static func presence(of friend: (userId: String, hidden: Bool, lastSeenAt: Date?), in state: State) -> (status: Status, lastSeen: Date?) {
        guard !friend.hidden else { return (.offline, nil) }
        let status = state.published[friend.userId] ?? .offline
        return (status, status == .offline ? state.lastSeen[friend.userId] ?? friend.lastSeenAt : Date())
    }

    /// Writes the last-seen times gathered since the last flush, in one transaction.
    func flush() {
        let times = state.withLock { state in
            defer { state.unsaved = [:] }
            return state.unsaved
        }
        guard !times.isEmpty else { return }
        Task { try? await store.saveLastSeen(times) }
    }
}

/// One change of a user's presence and the friends to tell.
private struct PresenceEvent: Sendable {
    var body: PresenceBody
    var sequence: Int64
}

/// `{userId, status, lastSeenAt}` on `/topic/presence.friends`.
struct PresenceBody: Encodable, Sendable {
    var userId: String
    var status: String
    var lastSeenAt: Date?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(status, forKey: .status)
        try container.encode(lastSeenAt, forKey: .lastSeenAt)
    }

    private enum CodingKeys: String, CodingKey {
        case userId, status, lastSeenAt
    }

    func json() throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return ByteBuffer(data: try encoder.encode(self))
    }
}

/// `{status: "online" | "away"}`: what a client sends to `/app/presence` when the app goes to the
/// background and comes back.
struct PresenceRequest: Decodable, Sendable {
    var status: PresenceTracker.Status

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let status = try container.decode(PresenceTracker.Status.self, forKey: .status)
        guard status != .offline else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "online or away")
        }
        self.status = status
    }

    private enum CodingKeys: String, CodingKey {
        case status
    }
}
