import Foundation
import Logging
import MeetCore
import NIOCore
import Stomp
import Synchronization

/// Chat rooms and direct messages across nodes (docs/scaling.md): every message a node commits
/// is published once to the relay, and each node delivers a room's messages to its own
/// subscribers in `seq` order, and a user's direct messages to their own sessions in inbox
/// order, each exactly once, whether the message was committed here or came over the relay.
///
/// Per stream (a room, or a user's inbox) with local subscribers the node keeps the last
/// position it delivered. A message at the next position is delivered as it is; one past a gap
/// first brings the missing ones from the shared database (a position is only ever seen once
/// committed, and positions commit in order, so the gap is always stored); one at or below it
/// is a repeat and dropped. The same read catches a stream up whenever the relay (re)confirms
/// the node's subscription, so losing RabbitMQ, or publications made before the relay had the
/// node's subscription, loses nothing: local delivery goes on meanwhile, and what other nodes
/// committed is read afterwards.
final class ChatRelay: Sendable {
    /// What is delivered in one order: a meeting's room, or one user's direct inbox.
    enum Stream: Hashable, Sendable {
        case room(meetingId: String)
        case inbox(userId: String)
    }

    /// One message on its way to local subscribers, at its position in its stream.
    struct Delivery: Sendable {
        var stream: Stream
        var position: Int64
        var headers: StompHeaders
        var body: ByteBuffer
    }

    private enum Event: Sendable {
        case delivery(Delivery)
        case catchUp(Stream)
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
    /// The last position delivered here, per stream with local subscribers.
    private let delivered = Mutex<[Stream: Int64]>([:])
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

    /// Takes over the broadcast of committed messages.
    func install() {
        chat.onCommitted { [weak self] messages in self?.committed(messages) }
    }

    /// Delivers until cancelled, in the order things happened.
    func run() async {
        for await event in events {
            do {
                switch event {
                case .delivery(let delivery):
                    try await deliver(delivery)
                case .catchUp(let stream):
                    try await catchUp(stream, through: nil)
                }
            } catch {
                logger.error("relay delivery failed", metadata: ["error": "\(error)"])
            }
        }
    }

    func stop() {
        queue.finish()
    }

    /// Until cancelled, every ``sweepInterval`` compares the rooms and inboxes that took
    /// messages lately with what was delivered here, and catches up those behind: a publication
    /// lost with a killed node (its receipt may leave before its publication does) or while the
    /// relay reconnects shows up within one interval.
    func sweep() async {
        while (try? await Task.sleep(for: Self.sweepInterval)) != nil {
            do {
                let since = Date().addingTimeInterval(-Self.sweepLookBack)
                let rooms = try await chat.roomsActive(since: since).map { (Stream.room(meetingId: $0.meetingId), $0.lastSeq) }
                let inboxes = try await chat.inboxesActive(since: since).map { (Stream.inbox(userId: $0.userId), $0.lastPosition) }
                for (stream, last) in rooms + inboxes {
                    let behind = delivered.withLock { $0[stream].map { $0 < last } ?? false }
                    if behind { queue.yield(.catchUp(stream)) }
                }
            } catch {
                logger.warning("relay sweep failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// What the relay hears: a message of a followed stream, or the confirmation that a stream
    /// is followed (then whatever was missed meanwhile is read from the database).
    var handlers: RelayLink.Handlers {
        RelayLink.Handlers(
            message: { [weak self] destination, headers, body in
                guard let self, let stream = Self.stream(of: destination),
                      let position = headers[stream.positionHeader].flatMap(Int64.init) else { return }
                var local = StompHeaders()
                for name in stream.headerNames { local.set(name, headers[name]) }
                queue.yield(.delivery(Delivery(stream: stream, position: position, headers: local, body: body)))
            },
            following: { [weak self] destination in
                guard let stream = Self.stream(of: destination) else { return }
                self?.queue.yield(.catchUp(stream))
            })
    }

    /// Publishes each committed message to the relay once, and hands it to local delivery
    /// (once per member's inbox for a direct message).
    private func committed(_ messages: [ChatMessage]) {
        for message in messages {
            guard let deliveries = try? Self.deliveries(of: message, linkBase: linkBase) else { continue }
            for delivery in deliveries {
                var headers = delivery.headers
                headers.set(Self.originHeader, node)
                link.publish(to: delivery.stream.relayTopic, headers: headers, body: delivery.body)
                queue.yield(.delivery(delivery))
            }
        }
    }

    /// Runs under the broker's subscription lock: reads where the stream stands before its
    /// first local subscriber is added, so that everything committed later reaches it.
    func interestChanged(_ interest: StompInterest) {
        switch interest {
        case .began(let destination):
            guard let stream = Self.stream(of: destination) else { return }
            do {
                let last = try lastPosition(of: stream)
                delivered.withLock { $0[stream] = last }
                link.follow(stream.relayTopic)
            } catch {
                logger.error("not relayed: the last position is unreadable", metadata: ["stream": "\(stream)", "error": "\(error)"])
            }
        case .ended(let destination):
            guard let stream = Self.stream(of: destination) else { return }
            delivered.withLock { _ = $0.removeValue(forKey: stream) }
            link.unfollow(stream.relayTopic)
        }
    }

    private func deliver(_ delivery: Delivery) async throws {
        guard let last = delivered.withLock({ $0[delivery.stream] }), delivery.position > last else { return }
        if delivery.position == last + 1 {
            publishLocally(delivery)
        } else {
            try await catchUp(delivery.stream, through: delivery.position)
        }
    }

    /// Delivers the stream's stored messages after the last one delivered here, up to
    /// `position` (or all of them).
    private func catchUp(_ stream: Stream, through position: Int64?) async throws {
        while let last = delivered.withLock({ $0[stream] }), last < position ?? .max {
            let page = try await stored(stream, after: last)
            for delivery in page { publishLocally(delivery) }
            if page.count < Self.page { return }
        }
    }

    private func publishLocally(_ delivery: Delivery) {
        let isNext = delivered.withLock { delivered in
            guard let last = delivered[delivery.stream], delivery.position > last else { return false }
            delivered[delivery.stream] = delivery.position
            return true
        }
        guard isNext else { return }
        switch delivery.stream {
        case .room(let meetingId):
            broker.publish(to: MeetingTopic(meetingId: meetingId, room: .chat).destination, headers: delivery.headers, body: delivery.body)
        case .inbox(let userId):
            broker.send(toUser: userId, destination: DirectApplication.queue, headers: delivery.headers, body: delivery.body)
        }
    }

    private func lastPosition(of stream: Stream) throws -> Int64 {
        switch stream {
        case .room(let meetingId): try chat.lastSeq(of: meetingId)
        case .inbox(let userId): try chat.lastInboxPosition(of: userId)
        }
    }

    /// At most a ``page`` of the stream's stored messages after `position`, as deliveries.
    private func stored(_ stream: Stream, after position: Int64) async throws -> [Delivery] {
        switch stream {
        case .room(let meetingId):
            try await chat.messages(of: meetingId, after: position, limit: Self.page).flatMap { try Self.deliveries(of: $0, linkBase: linkBase) }
        case .inbox(let userId):
            try await chat.directInbox(of: userId, after: position, limit: Self.page).map { entry in
                try Self.delivery(entry.message, to: stream, at: entry.position, linkBase: linkBase)
            }
        }
    }

    /// The stream a local destination (a room topic, a user's direct queue) or a relay topic
    /// belongs to; nil for anything the relay does not carry.
    private static func stream(of destination: StompInterest.Destination) -> Stream? {
        if let userId = destination.userId {
            return destination.destination == DirectApplication.queue ? .inbox(userId: userId) : nil
        }
        return stream(of: destination.destination)
    }

    private static func stream(of destination: String) -> Stream? {
        let directPrefix = "/topic/direct."
        if destination.hasPrefix(directPrefix), destination.count > directPrefix.count {
            return .inbox(userId: String(destination.dropFirst(directPrefix.count)))
        }
        guard let topic = MeetingTopic(destination: destination), topic.room == .chat else { return nil }
        return .room(meetingId: topic.meetingId)
    }

    /// A committed message as it reaches local subscribers: once for a room message, once per
    /// member's inbox for a direct message.
    private static func deliveries(of message: ChatMessage, linkBase: String) throws -> [Delivery] {
        guard let meetingId = message.meetingId else {
            return try message.inboxPositions.map { userId, position in
                try delivery(message, to: .inbox(userId: userId), at: position, linkBase: linkBase)
            }
        }
        return [try delivery(message, to: .room(meetingId: meetingId), at: message.seq, linkBase: linkBase)]
    }

    private static func delivery(_ message: ChatMessage, to stream: Stream, at position: Int64, linkBase: String) throws -> Delivery {
        let headers = switch stream {
        case .room: ChatRoomApplication.headers(of: message)
        case .inbox: DirectApplication.headers(of: message, position: position)
        }
        return Delivery(stream: stream, position: position, headers: headers, body: try ChatMessageBody(message, linkBase: linkBase).json())
    }
}

extension ChatRelay.Stream {
    /// Where the stream travels between nodes.
    var relayTopic: String {
        switch self {
        case .room(let meetingId): MeetingTopic(meetingId: meetingId, room: .chat).destination
        case .inbox(let userId): "/topic/direct.\(userId)"
        }
    }

    /// The header that carries a message's position in the stream.
    var positionHeader: String {
        switch self {
        case .room: "seq"
        case .inbox: "inbox-seq"
        }
    }

    /// The headers a relayed message keeps for local subscribers.
    var headerNames: [String] {
        switch self {
        case .room: ["content-type", "seq"]
        case .inbox: ["content-type", "seq", "inbox-seq"]
        }
    }
}
