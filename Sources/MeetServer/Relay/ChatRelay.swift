import Foundation
import Logging
import MeetCore
import NIOCore
import Stomp
import Synchronization

/// Chat rooms across nodes (docs/scaling.md): every message a node commits is published once to
/// the relay, and each node delivers a room's messages to its own subscribers in `seq` order,
/// each exactly once, whether the message was committed here or came over the relay.
///
/// Per room with local subscribers the node keeps the last seq it delivered. A message at the
/// next seq is delivered as it is; one past a gap first brings the missing ones from the shared
/// database (a seq is only ever seen once committed, and seqs commit in order, so the gap is
/// always stored); one at or below it is a repeat and dropped. The same read catches a room up
/// whenever the relay (re)confirms the node's subscription, so losing RabbitMQ loses nothing:
/// local delivery goes on meanwhile, and what other nodes committed is read afterwards.
final class ChatRelay: Sendable {
    /// One room message on its way to local subscribers.
    struct Delivery: Sendable {
        var meetingId: String
        var seq: Int64
        var headers: StompHeaders
        var body: ByteBuffer
    }

    private enum Event: Sendable {
        case delivery(Delivery)
        case catchUp(meetingId: String)
    }

    /// How many stored messages one catch-up read takes.
    static let page = 100
    /// How often the rooms are compared with the database (``sweep()``).
    static let sweepInterval = Duration.seconds(2)
    /// How far back, in seconds, a sweep looks for rooms with new messages: several intervals,
    /// so that a slow sweep or a node's late commit is not missed.
    static let sweepLookBack: Double = 30
    /// The header naming the node a relayed message was committed on (for operators' eyes).
    static let originHeader = "meetupd-node"

    let chat: ChatService
    let broker: StompBroker
    let link: RelayLink
    let linkBase: String
    let node: String
    let logger: Logger
    /// The last seq delivered here, per room with local subscribers.
    private let delivered = Mutex<[String: Int64]>([:])
    private let events: AsyncStream<Event>
    private let queue: AsyncStream<Event>.Continuation

    init(chat: ChatService, broker: StompBroker, link: RelayLink, linkBase: String, node: String, logger: Logger) {
        self.chat = chat
        self.broker = broker
        self.link = link
        self.linkBase = linkBase
        self.node = node
        self.logger = logger
        (events, queue) = AsyncStream.makeStream(of: Event.self)
    }

    /// Takes over the broadcast of committed messages and follows the broker's rooms.
    func install() {
        chat.onCommitted { [weak self] messages in self?.committed(messages) }
        broker.onInterest { [weak self] interest in self?.interestChanged(interest) }
    }

    /// Delivers until cancelled, in the order things happened.
    func run() async {
        for await event in events {
            do {
                switch event {
                case .delivery(let delivery):
                    try await deliver(delivery)
                case .catchUp(let meetingId):
                    try await catchUp(meetingId, through: nil)
                }
            } catch {
                logger.error("relay delivery failed", metadata: ["error": "\(error)"])
            }
        }
    }

    func stop() {
        queue.finish()
    }

    /// Until cancelled, every ``sweepInterval`` compares the rooms that took messages lately
    /// with what was delivered here, and catches up those behind: a publication lost with a
    /// killed node (its receipt may leave before its publication does) or while the relay
    /// reconnects shows up within one interval.
    func sweep() async {
        while (try? await Task.sleep(for: Self.sweepInterval)) != nil {
            do {
                let since = Date().addingTimeInterval(-Self.sweepLookBack)
                for room in try await chat.roomsActive(since: since) {
                    let behind = delivered.withLock { $0[room.meetingId].map { $0 < room.lastSeq } ?? false }
                    if behind { queue.yield(.catchUp(meetingId: room.meetingId)) }
                }
            } catch {
                logger.warning("relay sweep failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// What the relay hears: a message of a followed room, or the confirmation that a room is
    /// followed (then whatever was missed meanwhile is read from the database).
    var handlers: RelayLink.Handlers {
        RelayLink.Handlers(
            message: { [weak self] destination, headers, body in
                guard let self else { return }
                if let userId = Self.directUser(destination) {
                    // This node delivered its own direct messages when it committed them.
                    guard headers[Self.originHeader] != node else { return }
                    var local = StompHeaders()
                    for name in ["content-type", "seq", "inbox-seq"] { local.set(name, headers[name]) }
                    broker.send(toUser: userId, destination: DirectApplication.queue, headers: local, body: body)
                    return
                }
                guard let topic = MeetingTopic(destination: destination), topic.room == .chat,
                      let seq = headers["seq"].flatMap(Int64.init) else { return }
                var local = StompHeaders()
                for name in ["content-type", "seq"] { local.set(name, headers[name]) }
                queue.yield(.delivery(Delivery(meetingId: topic.meetingId, seq: seq, headers: local, body: body)))
            },
            following: { [weak self] destination in
                guard let topic = MeetingTopic(destination: destination), topic.room == .chat else { return }
                self?.queue.yield(.catchUp(meetingId: topic.meetingId))
            })
    }

    private func committed(_ messages: [ChatMessage]) {
        for message in messages {
            guard let meetingId = message.meetingId else {
                direct(message)
                continue
            }
            guard let delivery = try? Self.delivery(message, meetingId: meetingId, linkBase: linkBase) else { continue }
            var headers = delivery.headers
            headers.set(Self.originHeader, node)
            link.publish(to: Self.topic(meetingId), headers: headers, body: delivery.body)
            queue.yield(.delivery(delivery))
        }
    }

    /// A direct message goes to its members' sessions here at once, and to the relay for
    /// their sessions elsewhere (at most once there: a session that misses it resumes with
    /// `since-seq` on its inbox, docs/chat.md).
    private func direct(_ message: ChatMessage) {
        DirectApplication.deliver(message, on: broker, linkBase: linkBase)
        guard let body = try? ChatMessageBody(message, linkBase: linkBase).json() else { return }
        for (userId, position) in message.inboxPositions {
            var headers = DirectApplication.headers(of: message, position: position)
            headers.set(Self.originHeader, node)
            link.publish(to: Self.directTopic(userId), headers: headers, body: body)
        }
    }

    /// Runs under the broker's subscription lock: reads where the room stands before its first
    /// subscriber is added, so that everything committed later reaches that subscriber.
    private func interestChanged(_ interest: StompInterest) {
        switch interest {
        case .began(let destination):
            if let userId = destination.userId {
                if destination.destination == DirectApplication.queue { link.follow(Self.directTopic(userId)) }
                return
            }
            guard let topic = MeetingTopic(destination: destination.destination), topic.room == .chat else { return }
            do {
                let last = try chat.lastSeq(of: topic.meetingId)
                delivered.withLock { $0[topic.meetingId] = last }
                link.follow(destination.destination)
            } catch {
                logger.error("room not relayed: its last seq is unreadable", metadata: ["meeting": "\(topic.meetingId)", "error": "\(error)"])
            }
        case .ended(let destination):
            if let userId = destination.userId {
                if destination.destination == DirectApplication.queue { link.unfollow(Self.directTopic(userId)) }
                return
            }
            guard let topic = MeetingTopic(destination: destination.destination), topic.room == .chat else { return }
            delivered.withLock { _ = $0.removeValue(forKey: topic.meetingId) }
            link.unfollow(destination.destination)
        }
    }

    private func deliver(_ delivery: Delivery) async throws {
        guard let last = delivered.withLock({ $0[delivery.meetingId] }), delivery.seq > last else { return }
        if delivery.seq == last + 1 {
            publishLocally(delivery)
        } else {
            try await catchUp(delivery.meetingId, through: delivery.seq)
        }
    }

    /// Delivers the room's stored messages after the last one delivered here, up to `seq` (or
    /// all of them).
    private func catchUp(_ meetingId: String, through seq: Int64?) async throws {
        while let last = delivered.withLock({ $0[meetingId] }), last < seq ?? .max {
            let page = try await chat.messages(of: meetingId, after: last, limit: Self.page)
            for message in page {
                publishLocally(try Self.delivery(message, meetingId: meetingId, linkBase: linkBase))
            }
            if page.count < Self.page { return }
        }
    }

    private func publishLocally(_ delivery: Delivery) {
        let isNext = delivered.withLock { delivered in
            guard let last = delivered[delivery.meetingId], delivery.seq > last else { return false }
            delivered[delivery.meetingId] = delivery.seq
            return true
        }
        if isNext {
            broker.publish(to: Self.topic(delivery.meetingId), headers: delivery.headers, body: delivery.body)
        }
    }

    private static func topic(_ meetingId: String) -> String {
        "/topic/meetings.\(meetingId).chat"
    }

    /// Where a user's direct messages travel between nodes.
    private static func directTopic(_ userId: String) -> String {
        "/topic/direct.\(userId)"
    }

    /// The user of a ``directTopic(_:)``, or nil for another destination.
    private static func directUser(_ destination: String) -> String? {
        let prefix = "/topic/direct."
        guard destination.hasPrefix(prefix), destination.count > prefix.count else { return nil }
        return String(destination.dropFirst(prefix.count))
    }

    private static func delivery(_ message: ChatMessage, meetingId: String, linkBase: String) throws -> Delivery {
        Delivery(meetingId: meetingId, seq: message.seq, headers: ChatRoomApplication.headers(of: message),
                 body: try ChatMessageBody(message, linkBase: linkBase).json())
    }
}
