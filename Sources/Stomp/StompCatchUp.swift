import NIOCore

/// How a new subscription catches up on what it missed before it goes live: the application
/// reads the missed messages in pages (e.g. a chat room's messages after `since-seq`), and the
/// session delivers them in order while it holds the subscription's live messages back, then
/// delivers the held ones that come after the last page. Live messages carry their position in
/// a header, so none is delivered twice and none is skipped, however the two race: a message
/// a page already delivered is dropped whether it is held or published after the subscription
/// went live (committed before the page was read, published after).
public struct StompCatchUp: Sendable {
    /// A missed message and its position in the destination's order.
    public struct Message: Sendable {
        /// The MESSAGE headers the application adds (its position header among them).
        public var headers: StompHeaders
        /// As it would have been published.
        public var body: ByteBuffer
        /// Its place in the destination's order (a chat room's `seq`).
        public var position: Int64

        /// Creates a missed message.
        public init(headers: StompHeaders, body: ByteBuffer, position: Int64) {
            self.headers = headers
            self.body = body
            self.position = position
        }
    }

    /// The header of live messages that carries their position (e.g. `seq`).
    public var positionHeader: String
    /// Where the subscriber stands: it wants the messages after this position.
    public var after: Int64
    /// The next page of messages after a position, oldest first; empty once caught up. Read off
    /// the event loop; a page should be small, so that the reader's pace can be kept between pages.
    public var page: @Sendable (_ after: Int64) async throws -> [Message]

    /// Creates a catch-up plan.
    public init(positionHeader: String, after: Int64, page: @escaping @Sendable (_ after: Int64) async throws -> [Message]) {
        self.positionHeader = positionHeader
        self.after = after
        self.page = page
    }

    /// No missed messages: the live ones held back meanwhile (while a grant was confirmed) go
    /// out in order.
    static let nothingMissed = StompCatchUp(positionHeader: "", after: 0) { _ in [] }

    /// The most live messages one catching-up subscription may hold back; a subscriber whose
    /// catch-up falls this far behind the live room is disconnected as a slow consumer.
    static let maximumHeld = 10_000
}

extension StompSession {
    /// Delivers the missed messages page by page, then the held live ones past the last page,
    /// and turns the subscription live. Completes when the subscriber has caught up; a page that
    /// fails (refused, unreadable) ends the subscription, which would otherwise hold its live
    /// messages back for good, and the SUBSCRIBE is answered with the failure.
    ///
    /// Goes at the pace the subscriber reads: once more than the channel's high-water mark waits
    /// to be written, the rest of the page waits until it is back under the low one, and is
    /// read again from the last message written. A long absence replayed at once filled the
    /// outbound buffer past its limit, and the subscriber was dropped as a slow consumer, again
    /// on every try.
    ///
    /// `registered` is told once the first page is asked for: the session's later frames wait
    /// only for that, not for the pages.
    func catchUp(_ subscriptionId: String, serial: UInt64, _ plan: StompCatchUp, after position: Int64,
                 registered: EventLoopPromise<Void>? = nil) -> EventLoopFuture<Void> {
        let page = eventLoop.makeFutureWithTask { try await plan.page(position) }
        registered?.succeed()
        return page
            .hop(to: eventLoop)
            .flatMapError { failure in
                // A catch-up whose subscription was replaced meanwhile fails quietly: the refusal
                // would name the new one's id.
                guard self.subscriptions[subscriptionId]?.serial == serial else { return self.eventLoop.makeSucceededFuture([]) }
                self.removeSubscription(subscriptionId)
                return self.eventLoop.makeFailedFuture(failure)
            }
            .flatMap { page in
                guard case .connected = self.phase, let subscription = self.subscriptions[subscriptionId],
                      subscription.serial == serial else {
                    return self.catchUpStopped(serial)
                }
                guard let last = page.last else {
                    return self.goLive(subscriptionId, serial: serial, positionHeader: plan.positionHeader, after: position)
                }
                var next = max(position, last.position)
                for missed in page where missed.position > position {
                    let message = self.broker.makeMessage(destination: subscription.destination, headers: missed.headers, body: missed.body)
                    var cache = StompMessageEncodingCache(message: message, allocator: self.allocator)
                    _ = self.deliver(message, subscriptionId: subscriptionId, cache: &cache, evenWhileCatchingUp: true)
                    if self.isBehind, missed.position < next {
                        next = missed.position
                        break
                    }
                }
                self.flush()
                let after = next
                return self.whenWritable().flatMap { self.catchUp(subscriptionId, serial: serial, plan, after: after) }
            }
    }

    /// Releases the live messages held during catch-up, skipping those the pages delivered, at
    /// the pace the subscriber reads, as the pages go (a busy room held more than the outbound
    /// limit while a slow link caught up), then turns the subscription live. Messages published
    /// meanwhile join the held ones, in order.
    private func goLive(_ subscriptionId: String, serial: UInt64, positionHeader: String, after position: Int64,
                        deliveredNewer: Bool = false) -> EventLoopFuture<Void> {
        guard case .connected = phase, let subscription = subscriptions[subscriptionId], subscription.serial == serial,
              let held = subscription.held else { return catchUpStopped(serial) }
        var released = 0
        var deliveredNewer = deliveredNewer
        for message in held {
            guard !isBehind else { break }
            released += 1
            guard (message.headers[positionHeader].flatMap { Int64($0) } ?? .max) > position else { continue }
            deliveredNewer = true
            var cache = StompMessageEncodingCache(message: message, allocator: allocator)
            _ = deliver(message, subscriptionId: subscriptionId, cache: &cache, evenWhileCatchingUp: true)
        }
        subscriptions[subscriptionId]?.held?.removeFirst(released)
        flush()
        guard subscriptions[subscriptionId]?.held?.isEmpty == true else {
            let newer = deliveredNewer
            return whenWritable().flatMap {
                self.goLive(subscriptionId, serial: serial, positionHeader: positionHeader, after: position, deliveredNewer: newer)
            }
        }
        subscriptions[subscriptionId]?.held = nil
        // Once a newer message is out, nothing older can follow (published in commit order);
        // until then, one committed before the last page but published late is dropped.
        if !positionHeader.isEmpty, !deliveredNewer {
            subscriptions[subscriptionId]?.caughtUpThrough = (positionHeader, position)
        }
        return eventLoop.makeSucceededVoidFuture()
    }

    /// The outcome of a catch-up that stops because its subscription is gone: answered already
    /// (``StompCatchUpEnded``) when the server ended it, else done (a RECEIPT, if asked): the
    /// client unsubscribed, or replaced it, or the session is closing.
    func catchUpStopped(_ serial: UInt64) -> EventLoopFuture<Void> {
        guard endedWhileCatchingUp.remove(serial) != nil else { return eventLoop.makeSucceededVoidFuture() }
        return eventLoop.makeFailedFuture(StompCatchUpEnded())
    }
}

/// A SUBSCRIBE whose subscription the server ended while it caught up: the refusal that ended
/// it was its answer, so nothing more is written for it.
struct StompCatchUpEnded: Error {}
