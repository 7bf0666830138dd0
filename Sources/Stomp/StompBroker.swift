import Logging
import NIOCore
import Synchronization

/// The broker: routes SENDs, keeps subscriptions and fans messages out. It knows nothing of the
/// application: authentication, authorization and `/app/...` handling are injected.
///
/// Destinations: `/topic/...` broadcasts to every current subscriber; `/user/queue/...` reaches
/// every session of the subscribing user (all of their devices); `/app/...` goes to the
/// ``StompApplication``.
public final class StompBroker: Sendable {
    /// Tunables of the broker and its sessions.
    public struct Configuration: Sendable {
        /// Limits on each inbound frame.
        public var limits = StompLimits()
        /// What the server offers in CONNECTED's `heart-beat`: floors, so in effect the client's
        /// wishes rule (as with stock brokers) but no client can make us beat or check faster.
        public var heartBeat = StompHeartBeat(send: 1_000, receive: 1_000)
        /// How late a client's heart-beat may be, as a multiple of the negotiated interval, before
        /// the session is declared dead: clients' timers drift, so exactly 1 would be too strict.
        public var heartBeatTolerance = 1.5
        /// The most bytes a session may have waiting to be written; a consumer past it is
        /// disconnected with an ERROR naming the reason.
        public var maxOutboundBytes = 1024 * 1024
        /// The most delivered-but-unacknowledged messages one session may hold.
        public var maxPendingAcks = 10_000
        /// The longest a publisher is not read because the recipients of its last SEND are
        /// behind (``StompPublisherFlow``); then it is read again, and recipients still behind are
        /// cut off as slow consumers as more messages reach them.
        public var publisherPauseLimit = TimeAmount.seconds(1)
        /// The most frames one transaction may hold.
        public var maxTransactionFrames = 1_000
        /// How long a closing session waits for its last frame (ERROR, RECEIPT) to leave before
        /// it closes anyway: a peer that stopped reading cannot keep it open.
        public var closeGracePeriod = TimeAmount.seconds(2)
        /// The `server` header of CONNECTED.
        public var serverName = "meetupd"
        /// `/topic/...` destinations keyed per user, like `/user/queue/...`: each subscriber hears
        /// only what is sent to them with ``StompBroker/send(toUser:destination:headers:body:)``
        /// (e.g. a feed of one's own friends' presence). Clients cannot SEND to them.
        public var userTopics: Set<String> = []
        /// How long a new connection has to send CONNECT (from the TCP accept or the WebSocket
        /// upgrade) before it gets an ERROR and the close.
        public var connectTimeout = TimeAmount.seconds(10)
        /// The most connections that have not signed in yet; the next one pushes out the one that
        /// has waited longest, so a flood of idle sockets cannot keep real clients out.
        public var maxUnauthenticatedSessions = 4096
        /// The most frames a session handles in one go before the event loop serves others: a
        /// message packed with frames cannot hold the loop.
        public var framesPerPass = 64

        /// The defaults.
        public init() {}
    }

    let configuration: Configuration
    let authenticator: any StompAuthenticator
    let authorizer: any StompAuthorizer
    let application: (any StompApplication)?
    let logger: Logger
    let metrics = StompMetrics()
    private let registry = Mutex(StompSubscriptionRegistry())
    private let interest = Mutex<InterestObserver?>(nil)
    let signedIn = Mutex(StompSignedInSessions())
    let unauthenticated = Mutex(StompUnauthenticatedSessions())
    private let sessionObservers = Mutex<[@Sendable (StompSessionChange) -> Void]>([])
    private let messageCounter = Atomic<Int>(0)
    private let sessionCounter = Atomic<Int>(0)
    /// How many times a publisher was paused (``StompPublisherFlow``); the metric counts the same.
    let publisherPauseCount = Atomic<Int>(0)

    /// Creates a broker.
    public init(configuration: Configuration = Configuration(), authenticator: any StompAuthenticator,
                authorizer: any StompAuthorizer, application: (any StompApplication)? = nil,
                logger: Logger = Logger(label: "meetupd.stomp")) {
        self.configuration = configuration
        self.authenticator = authenticator
        self.authorizer = authorizer
        self.application = application
        self.logger = logger
    }

    /// Adds an observer of sessions signing in and ending (e.g. presence, members on the way),
    /// called on the session's event loop: keep it short.
    public func onSessionChange(_ observe: @escaping @Sendable (StompSessionChange) -> Void) {
        sessionObservers.withLock { $0.append(observe) }
    }

    func sessionChanged(_ change: StompSessionChange) {
        for observe in sessionObservers.withLock({ $0 }) { observe(change) }
    }

    /// Broadcasts to every subscriber of a `/topic/...` destination.
    public func publish(to destination: String, headers: StompHeaders = [:], body: ByteBuffer) {
        fanOut(to: destination, headers: headers, body: body)
    }

    /// Broadcasts to every subscriber of a `/topic/...` destination the message `make` builds,
    /// called only when the destination has a subscriber on this broker: a chat room nobody here
    /// listens to costs its message no JSON (a fifth of a durable post's writer work, issue 10).
    /// A subscriber that comes later gets the message only by catching up, as with ``publish(to:headers:body:)``.
    public func publish(to destination: String,
                        _ make: () throws -> (headers: StompHeaders, body: ByteBuffer)) rethrows {
        let (key, groups) = registry.withLock { $0.entry(for: destination) }
        guard !groups.isEmpty else { return }
        let (headers, body) = try make()
        deliver(makeMessage(destination: key, headers: headers, body: body), to: groups)
    }

    /// Broadcasts, and returns the recipients, so that a publishing session can see whether
    /// they keep up.
    @discardableResult
    func fanOut(to destination: String, headers: StompHeaders, body: ByteBuffer) -> StompPublisherFlow.Recipients {
        // The registry's copy of the destination: each subscription compares it by identity.
        let (key, groups) = registry.withLock { $0.entry(for: destination) }
        let message = makeMessage(destination: key, headers: headers, body: body)
        let behindHere = deliver(message, to: groups)
        return StompPublisherFlow.Recipients(groups: groups, behindHere: behindHere)
    }

    /// Delivers to every session of `userId` subscribed to `destination` (`/user/queue/...`).
    public func send(toUser userId: String, destination: String, headers: StompHeaders = [:], body: ByteBuffer) {
        let message = makeMessage(destination: destination, headers: headers, body: body)
        let key = Self.userKey(userId: userId, destination: destination)
        deliver(message, to: registryGroups(key))
    }

    /// Ends every subscription of `userId`'s sessions (all of their devices) to `destination`,
    /// as when the application takes a user's access away: no MESSAGE published after this call
    /// reaches those subscriptions, and each session is told with
    /// `refusal` on its `/user/queue/errors`, the body naming the destination and the
    /// subscription id. A session without that queue gets `refusal` as ERROR and the close, as
    /// for any refusal. The sessions themselves and their other subscriptions stay.
    public func endSubscriptions(ofUser userId: String, to destination: String, refusal: StompRefusal) {
        end(subscriptions(ofUser: userId, to: destination), refusal: refusal)
    }

    /// `userId`'s subscriptions to `destination` as the registry holds them now, by event loop.
    func subscriptions(ofUser userId: String, to destination: String) -> [StompSubscriptionRegistry.LoopGroup] {
        guard let key = subscriptionKey(destination: destination, principal: StompPrincipal(userId: userId)) else { return [] }
        return registryGroups(key).compactMap { group in
            var mine = group
            mine.subscribers = group.subscribers.filter { $0.userId == userId }
            return mine.subscribers.isEmpty ? nil : mine
        }
    }

    /// Ends the subscriptions of `groups`, each on its loop: by then its session may have
    /// replaced one with a new subscription of the same id, which stays.
    func end(_ groups: [StompSubscriptionRegistry.LoopGroup], refusal: StompRefusal) {
        for group in groups {
            let ending = group.subscribers
            // Like a delivery, inline on its own loop: what is published after this call is
            // queued behind it on every loop, so it never reaches the ended subscriptions.
            let end: @Sendable () -> Void = {
                for subscriber in ending {
                    subscriber.session.endSubscription(subscriber.subscriptionId, serial: subscriber.serial, refusal: refusal)
                }
            }
            if group.eventLoop.inEventLoop { end() } else { group.eventLoop.execute(end) }
        }
    }

    /// The subscribers of a registry key, grouped by event loop.
    func registryGroups(_ key: String) -> [StompSubscriptionRegistry.LoopGroup] {
        registry.withLock { $0.groups(for: key) }
    }

    func makeMessage(destination: String, headers: StompHeaders, body: ByteBuffer) -> StompMessage {
        let number = messageCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return StompMessage(destination: destination, messageId: String(number), headers: headers, body: body)
    }

    func nextSessionId() -> String {
        String(sessionCounter.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// The registry key a SUBSCRIBE to `destination` listens on, or `nil` for one that cannot be
    /// subscribed to. User queues are keyed per user, so one user's queue never reaches another.
    func subscriptionKey(destination: String, principal: StompPrincipal) -> String? {
        if destination.hasPrefix("/user/queue/") || configuration.userTopics.contains(destination) {
            return Self.userKey(userId: principal.userId, destination: destination)
        }
        if destination.hasPrefix("/topic/") { return destination }
        return nil
    }

    private static func userKey(userId: String, destination: String) -> String {
        "\u{0}\(userId)\u{0}\(destination)"
    }

    /// Sets who hears when a destination gets its first subscriber on this broker and when it
    /// loses its last (a relay follows the same destination elsewhere only meanwhile).
    ///
    /// `observe` runs under the broker's subscription lock, before the first subscriber is added
    /// and after the last is removed: whatever it reads is older than any message the new
    /// subscriber can be sent. It must be quick and must not call back into the broker.
    public func onInterest(_ observe: @escaping @Sendable (StompInterest) -> Void) {
        interest.withLock { $0 = InterestObserver(observe: observe) }
    }

    /// Registers `subscriber` under `key`; returns the registry's copy of `key`, for the
    /// subscription to keep (``StompSubscriptionRegistry/entry(for:)``).
    func subscribe(_ subscriber: StompSubscriptionRegistry.Subscriber, to key: String) -> String {
        let observe = interest.withLock { $0 }?.observe
        let stored = registry.withLock { registry in
            if let observe, !registry.hasSubscribers(key) { observe(.began(Self.interestDestination(key))) }
            return registry.add(subscriber, to: key)
        }
        metrics.subscriptions.increment()
        return stored
    }

    func unsubscribe(_ session: StompSession, subscriptionId: String, from key: String) {
        let observe = interest.withLock { $0 }?.observe
        registry.withLock { registry in
            let had = registry.hasSubscribers(key)
            registry.remove(session: session, subscriptionId: subscriptionId, from: key)
            if let observe, had, !registry.hasSubscribers(key) { observe(.ended(Self.interestDestination(key))) }
        }
        metrics.subscriptions.decrement()
    }

    /// The interest observer, in a struct: a closure kept bare in a `Mutex` would run through
    /// two more thunks after every read (docs/conventions.md, Locks).
    private struct InterestObserver {
        let observe: @Sendable (StompInterest) -> Void
    }

    /// A registry key as the destination it stands for, with the user of a user queue.
    private static func interestDestination(_ key: String) -> StompInterest.Destination {
        guard key.hasPrefix("\u{0}") else { return .init(destination: key, userId: nil) }
        let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
        return .init(destination: String(parts[2]), userId: String(parts[1]))
    }

    /// Writes `message` to each group on its own event loop: one hop per loop, inline on this one.
    /// Returns how many recipients on this loop are behind once it is written to them.
    @discardableResult
    private func deliver(_ message: StompMessage, to groups: [StompSubscriptionRegistry.LoopGroup]) -> Int {
        var behind = 0
        for group in groups {
            metrics.sent(.message, count: group.subscribers.count)
            if group.eventLoop.inEventLoop {
                behind += self.deliverOnLoop(message, to: group)
            } else {
                group.flushes.handOver { self.deliverOnLoop(message, to: group) }
            }
        }
        return behind
    }

    /// Writes to every subscriber of the group; the writes leave together at the end of the
    /// loop's pass (``StompFlushBatch``), with whatever else the pass wrote to them. Returns how
    /// many of them are behind, counted on the way (a second walk would touch every session again).
    @discardableResult
    private func deliverOnLoop(_ message: StompMessage, to group: StompSubscriptionRegistry.LoopGroup) -> Int {
        guard let first = group.subscribers.first else { return 0 }
        var cache = StompMessageEncodingCache(message: message, allocator: first.session.allocator)
        var bytes = 0
        var behind = 0
        for subscriber in group.subscribers {
            let session = subscriber.session
            let written = session.deliver(message, subscriptionId: subscriber.subscriptionId, cache: &cache)
            if written > 0 { group.flushes.add(session) }
            if session.isBehind { behind += 1 }
            bytes += written
        }
        metrics.bytesOut.increment(by: bytes)
        return behind
    }
}

/// A session signing in or ending, as ``StompBroker/onSessionChange(_:)`` reports it.
public enum StompSessionChange: Sendable {
    /// The session was authenticated (CONNECTED went out).
    case connected(StompPrincipal, sessionId: String)
    /// A signed-in session ended, whatever the reason.
    case disconnected(StompPrincipal, sessionId: String)
}
