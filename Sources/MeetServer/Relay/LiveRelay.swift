import Foundation
import MeetCore
import NIOCore
import Stomp
import Synchronization

/// What is live but never stored, across nodes (docs/scaling.md): typing in rooms and direct
/// conversations, members on the way, departures from rooms, and presence. What a node publishes for its own
/// sessions goes to the relay as well, marked with the node's name, and each node hands what
/// the others published to its own sessions. Without a relay only the local part runs.
///
/// - Typing and members on the way travel on the room's own topics, followed while the node
///   has a local subscriber; typing in a direct conversation on `/topic/typing.{userId}`, followed while
///   the user has a local subscription to `/user/queue/typing`.
/// - A departure travels on each of the room's topics (`chat`, `typing`, `locations`), so a
///   node that holds any subscription of the leaver to the room hears it and ends it.
/// - Presence travels on `/topic/presence`, followed by every node: each node announces its
///   own users' status there when it changes, and all of them again every ``presenceRefresh``
///   (a node that dies stops refreshing, and its users go offline elsewhere after
///   ``presenceExpiry``).
final class LiveRelay: Sendable {
    /// How often a node announces all of its users' presence again.
    static let presenceRefresh = Duration.seconds(20)
    /// How long another node's word on a user's presence holds without a refresh.
    static let presenceExpiry = Duration.seconds(60)
    /// The header carrying the user a departure is about.
    static let departureHeader = "meetupd-departure"
    static let presenceTopic = "/topic/presence"

    /// What the relay hands over to this node's other parts, in a struct: a closure kept bare
    /// in a `Mutex` would run through two more thunks after every read (docs/conventions.md, Locks).
    private struct Listeners {
        var departed: (@Sendable ([ChatDeparture]) -> Void)?
        var located: (@Sendable (_ meetingId: String, _ body: ByteBuffer) -> Void)?
    }

    let node: String
    let presence: PresenceTracker
    private let link: RelayLink?
    private let listeners = Mutex(Listeners())

    /// Publishes locally, and through `link` when there is a relay; a node's name tells its
    /// own publications apart when they come back.
    init(link: RelayLink?, node: String, presence: PresenceTracker) {
        self.link = link
        self.node = node
        self.presence = presence
        guard link != nil else { return }
        presence.onAnnounce { [weak self] in self?.announce($0) }
        link?.follow(Self.presenceTopic)
    }

    /// Sets what ends this node's subscriptions of members who left a room on another node.
    func onDeparture(_ depart: @escaping @Sendable ([ChatDeparture]) -> Void) {
        listeners.withLock { $0.departed = depart }
    }

    /// Sets what takes another node's member on the way (``OnTheWayTracker/mirror(_:in:)``).
    func onLocation(_ locate: @escaping @Sendable (_ meetingId: String, _ body: ByteBuffer) -> Void) {
        listeners.withLock { $0.located = locate }
    }

    /// Until cancelled, announces this node's users again every ``presenceRefresh`` and forgets
    /// what other nodes stopped refreshing.
    func refreshPresence() async {
        while (try? await Task.sleep(for: Self.presenceRefresh)) != nil {
            announce(presence.localStatuses())
            presence.forgetRemote(olderThan: Self.presenceExpiry)
        }
    }

    /// Publishes to a room topic's local subscribers and to the other nodes'.
    func publish(to destination: String, headers: StompHeaders, body: ByteBuffer, on broker: StompBroker) {
        broker.publish(to: destination, headers: headers, body: body)
        relay(to: destination, headers: headers, body: body)
    }

    /// Sends to a user's local typing queue and to their sessions on the other nodes.
    func sendTyping(toUser userId: String, headers: StompHeaders, body: ByteBuffer, on broker: StompBroker) {
        broker.send(toUser: userId, destination: TypingRelay.userQueue, headers: headers, body: body)
        relay(to: Self.typingTopic(userId), headers: headers, body: body)
    }

    /// Tells the other nodes that these members left their rooms (this node ended its own
    /// sessions' subscriptions already).
    func announce(_ departures: [ChatDeparture]) {
        for departure in departures {
            for room in MeetingTopic.Room.allCases {
                relay(to: MeetingTopic(meetingId: departure.meetingId, room: room).destination,
                      headers: [Self.departureHeader: departure.userId], body: ByteBuffer())
            }
        }
    }

    /// Tells the other nodes how these users stand on this node.
    func announce(_ presence: [PresenceTracker.NodeStatus]) {
        guard !presence.isEmpty, let body = try? JSONEncoder().encode(presence) else { return }
        relay(to: Self.presenceTopic, headers: ["content-type": "application/json"], body: ByteBuffer(data: body))
    }

    private func relay(to destination: String, headers: StompHeaders, body: ByteBuffer) {
        guard let link else { return }
        var headers = headers
        headers.set(ChatRelay.originHeader, node)
        link.publish(to: destination, headers: headers, body: body)
    }

    /// Follows what local subscribers listen to: a room's typing and locations topics, a
    /// user's typing queue. (Rooms' chat topics are ``ChatRelay``'s.)
    func interestChanged(_ interest: StompInterest) {
        guard let link else { return }
        switch interest {
        case .began(let destination):
            if let topic = Self.relayTopic(of: destination) { link.follow(topic) }
        case .ended(let destination):
            if let topic = Self.relayTopic(of: destination) { link.unfollow(topic) }
        }
    }

    /// What the relay hears for this part: another node's typing, departures and presence
    /// (handed to this node's sessions), and the confirmation that presence is followed (then
    /// the others learn how this node's users stand, whatever they missed meanwhile).
    func handlers(broker: StompBroker) -> RelayLink.Handlers {
        RelayLink.Handlers(
            message: { [weak self] destination, headers, body in
                self?.heard(destination, headers: headers, body: body, broker: broker)
            },
            following: { [weak self] destination in
                guard let self, destination == Self.presenceTopic else { return }
                announce(presence.localStatuses())
            })
    }

    private func heard(_ destination: String, headers: StompHeaders, body: ByteBuffer, broker: StompBroker) {
        guard let origin = headers[ChatRelay.originHeader], origin != node else { return }
        if destination == Self.presenceTopic {
            if let statuses = try? JSONDecoder().decode([PresenceTracker.NodeStatus].self, from: Data(buffer: body)) {
                presence.heard(statuses, from: origin)
            }
        } else if let userId = headers[Self.departureHeader], let topic = MeetingTopic(destination: destination) {
            listeners.withLock { $0 }.departed?([ChatDeparture(meetingId: topic.meetingId, userId: userId)])
        } else if let topic = MeetingTopic(destination: destination), topic.room == .typing {
            broker.publish(to: destination, headers: Self.local(headers), body: body)
        } else if let topic = MeetingTopic(destination: destination), topic.room == .locations {
            listeners.withLock { $0 }.located?(topic.meetingId, body)
        } else if let userId = Self.typingUser(destination) {
            broker.send(toUser: userId, destination: TypingRelay.userQueue, headers: Self.local(headers), body: body)
        }
    }

    /// The relay topic that carries a local destination across nodes, if this relay carries it.
    private static func relayTopic(of destination: StompInterest.Destination) -> String? {
        if let userId = destination.userId {
            return destination.destination == TypingRelay.userQueue ? typingTopic(userId) : nil
        }
        guard let topic = MeetingTopic(destination: destination.destination), topic.room != .chat else { return nil }
        return destination.destination
    }

    private static func typingTopic(_ userId: String) -> String { "/topic/typing.\(userId)" }

    private static func typingUser(_ destination: String) -> String? {
        let prefix = "/topic/typing."
        guard destination.hasPrefix(prefix), destination.count > prefix.count else { return nil }
        return String(destination.dropFirst(prefix.count))
    }

    /// The headers a relayed event keeps for local subscribers.
    private static func local(_ headers: StompHeaders) -> StompHeaders {
        ["content-type": headers["content-type"] ?? "application/json"]
    }
}
