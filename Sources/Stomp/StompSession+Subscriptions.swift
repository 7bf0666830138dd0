import NIOCore

/// How a subscription's messages are acknowledged.
enum StompAckMode: String {
    case auto
    case client
    case clientIndividual = "client-individual"
}

/// One subscription of a session, with the messages it still awaits ACK/NACK for.
struct Subscription {
    let destination: String
    let key: String
    let ack: StompAckMode
    /// Tells this subscription from a later one with the same id (a catch-up still running
    /// when its subscription was replaced must not feed the new one).
    let serial: UInt64
    /// Delivered, unacknowledged message ids in delivery order (empty in `auto` mode).
    var pending = CircularBuffer<String>()
    /// Live messages held back while the subscription catches up (``StompCatchUp``); `nil`
    /// once it is live.
    var held: [StompMessage]?
    /// Where the last catch-up page ended, until a newer live message arrives: a message
    /// committed before a page was read may be published only after the subscription went
    /// live, and must not be delivered a second time.
    var caughtUpThrough: (header: String, position: Int64)?

    /// Settles `messageId` (ACK or NACK) and returns how many messages that settled: in `client`
    /// mode every one up to it, in `client-individual` mode it alone; `nil` if it is not pending.
    mutating func settle(_ messageId: String) -> Int? {
        guard let index = pending.firstIndex(of: messageId) else { return nil }
        guard ack == .client else {
            pending.remove(at: index)
            return 1
        }
        let settled = pending.distance(from: pending.startIndex, to: index) + 1
        pending.removeFirst(settled)
        return settled
    }
}

extension StompSession {
    func subscribe(_ frame: StompFrame, version: StompVersion, principal: StompPrincipal) throws -> EventLoopFuture<Void> {
        let destination = try frame.required("destination")
        // STOMP 1.0 made `id` optional; its subscriptions are then named by their destination.
        let id = version == .v1_0 ? frame.headers["id"] ?? destination : try frame.required("id")
        let modeName = frame.headers["ack"] ?? "auto"
        guard let ack = StompAckMode(rawValue: modeName), version != .v1_0 || ack != .clientIndividual else {
            throw StompProtocolError.invalidAckMode(modeName)
        }
        guard subscriptions[id] == nil else { throw StompProtocolError.duplicateSubscription(id) }
        guard let key = broker.subscriptionKey(destination: destination, principal: principal) else {
            throw StompRefusal(code: "destination.unknown", message: "cannot subscribe to \(destination)")
        }
        subscriptionSerial += 1
        let serial = subscriptionSerial
        // The session goes on with its later frames once the subscription is registered and
        // confirmed; the RECEIPT still waits for the catch-up (``StompCatchUp``), however long.
        let registered = eventLoop.makePromise(of: Void.self)
        let answered = broker.authorizer.authorize(.subscribe, destination: destination, principal: principal, on: eventLoop)
            .hop(to: eventLoop)
            .flatMapThrowing { () -> StompCatchUp? in
                try self.broker.application?.catchUp(destination: destination, headers: frame.headers, principal: principal)
            }
            .flatMap { plan in
                guard case .connected = self.phase else { return self.eventLoop.makeSucceededVoidFuture() }
                // Live first, held back while catching up (and being confirmed): whatever is
                // published from now on is either in a page or held, so nothing falls between.
                // Registered and stored in one go on this loop, which is the one that delivers.
                let stored = self.broker.subscribe(.init(session: self, subscriptionId: id, acknowledged: ack != .auto,
                                                         userId: principal.userId, serial: serial), to: key)
                // A topic's subscription keeps the registry's copy of its name, so that fan-out
                // recognizes the message's destination by identity (``StompBroker/fanOut``).
                var subscription = Subscription(destination: key == destination ? stored : destination, key: stored, ack: ack,
                                                serial: serial)
                subscription.held = []
                self.subscriptions[id] = subscription
                // Asked only now that an ending of this access would find the subscription.
                guard let confirmation = self.broker.authorizer.confirm(subscriptionTo: destination, principal: principal, on: self.eventLoop) else {
                    guard let plan else {
                        // Nothing can have been held: this is the loop that delivers.
                        self.subscriptions[id]?.held = nil
                        return self.eventLoop.makeSucceededVoidFuture()
                    }
                    return self.catchUp(id, serial: serial, plan, after: plan.after, registered: registered)
                }
                return confirmation.hop(to: self.eventLoop)
                    .flatMapError { refusal in
                        // Taken away meanwhile: the subscription goes, unheard, as if refused.
                        self.removeSubscription(id)
                        self.endedWhileCatchingUp.remove(serial)
                        return self.eventLoop.makeFailedFuture(refusal)
                    }
                    .flatMap {
                        guard self.subscriptions[id]?.serial == serial else { return self.catchUpStopped(serial) }
                        let plan = plan ?? .nothingMissed
                        return self.catchUp(id, serial: serial, plan, after: plan.after, registered: registered)
                    }
            }
        // Answered without a catch-up (refused, or live at once): the later frames go on only
        // after the answer (``handle(_:)`` ends the hold after its own callback).
        answered.whenComplete { _ in registered.succeed() }
        releasesHoldEarly = registered.futureResult
        return answered
    }

    func unsubscribe(_ frame: StompFrame, version: StompVersion) throws {
        let id = try version == .v1_0 && frame.headers["id"] == nil ? frame.required("destination") : frame.required("id")
        // Unsubscribing twice is harmless: the second one has nothing left to do.
        removeSubscription(id)
    }

    /// Drops a subscription: no MESSAGE for it after this, not even one held during catch-up.
    /// Returns it, or nil if there was none.
    @discardableResult
    func removeSubscription(_ id: String) -> Subscription? {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return nil }
        pendingAckCount -= subscription.pending.count
        broker.unsubscribe(self, subscriptionId: id, from: subscription.key)
        return subscription
    }

    /// Ends a subscription from the server's side (``StompBroker/endSubscriptions(ofUser:to:refusal:)``):
    /// the subscription goes without a last MESSAGE, and the client learns of it as `refusal` on
    /// its `/user/queue/errors`, naming the destination and the subscription id. Only the
    /// subscription `serial`: one the client made since with the same id stays.
    func endSubscription(_ id: String, serial: UInt64, refusal: StompRefusal) {
        guard case .connected = phase, subscriptions[id]?.serial == serial, let subscription = removeSubscription(id) else { return }
        if subscription.held != nil { endedWhileCatchingUp.insert(subscription.serial) }
        refuse(refusal, destination: subscription.destination, receiptId: nil, subscriptionId: id)
    }

    /// ACK or NACK: in `client` mode it settles the message and every earlier one of its
    /// subscription, in `client-individual` mode that message alone. On a topic a NACKed message
    /// is discarded, as a stock broker's topic does.
    func acknowledge(_ frame: StompFrame, version: StompVersion) throws {
        let messageId = version == .v1_2 ? try frame.required("id") : try frame.required("message-id")
        let named = version == .v1_0 ? nil : frame.headers["subscription"]
        let candidates = named.map { [$0] } ?? Array(subscriptions.keys)
        for id in candidates {
            // Settled in place: a copy of the subscription would make the ring copy itself.
            guard let settled = subscriptions[id]?.settle(messageId) else { continue }
            pendingAckCount -= settled
            return
        }
        throw StompProtocolError.unknownAck(messageId)
    }

    /// Writes a fan-out MESSAGE to the subscriber, unless the subscription has gone meanwhile or
    /// the consumer has fallen too far behind (then it is disconnected, never waited for).
    /// Returns the bytes written; the caller counts them once for all recipients.
    /// While the subscription catches up, a live message is held instead, unless it is one
    /// of the missed ones (`evenWhileCatchingUp`).
    func deliver(_ message: StompMessage, subscriptionId: String, cache: inout StompMessageEncodingCache,
                 evenWhileCatchingUp: Bool = false) -> Int {
        // Only plain values are read out, and the subscription is changed in place where it
        // sits: a local copy would share its rings, so appending would copy them whole.
        guard case .connected(let version, _) = phase,
              let state = subscriptions[subscriptionId].flatMap({ subscription in
                  subscription.destination == message.destination
                      ? (subscription.ack, subscription.held?.count, subscription.caughtUpThrough) : nil
              }) else { return 0 }
        let (ack, heldCount, caughtUpThrough) = state
        if !evenWhileCatchingUp, let heldCount {
            guard heldCount < StompCatchUp.maximumHeld else {
                dropSlowConsumer(.tooManyHeld(limit: StompCatchUp.maximumHeld))
                return 0
            }
            subscriptions[subscriptionId]?.held?.append(message)
            return 0
        }
        if !evenWhileCatchingUp, let caughtUpThrough, let position = message.headers[caughtUpThrough.header].flatMap({ Int64($0) }) {
            guard position > caughtUpThrough.position else { return 0 }
            // Published in order: nothing older can follow this one.
            subscriptions[subscriptionId]?.caughtUpThrough = nil
        }
        guard admitsMore() else { return 0 }
        if ack != .auto {
            guard pendingAckCount < broker.configuration.maxPendingAcks else {
                dropSlowConsumer(.tooManyUnacknowledged(limit: broker.configuration.maxPendingAcks))
                return 0
            }
            subscriptions[subscriptionId]?.pending.append(message.messageId)
            pendingAckCount += 1
        }
        let written = writeMessage(from: &cache, subscription: subscriptionId, acknowledged: ack != .auto, version: version)
        flushIfMuchWaits()
        return written
    }

    /// Delivers to this session's own subscriptions on `message.destination` (replies, refusals).
    func deliverToOwnSubscriptions(_ message: StompMessage) {
        var cache = StompMessageEncodingCache(message: message, allocator: allocator)
        var bytes = 0
        for (id, subscription) in subscriptions where subscription.destination == message.destination {
            bytes += deliver(message, subscriptionId: id, cache: &cache)
        }
        broker.metrics.bytesOut.increment(by: bytes)
        flush()
    }

    /// Whether the outbound buffer can take more; a consumer past the limit is disconnected.
    private func admitsMore() -> Bool {
        guard isBehind, let channel else { return true }
        let buffered = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        guard buffered > broker.configuration.maxOutboundBytes else { return true }
        dropSlowConsumer(.slowConsumer(limit: broker.configuration.maxOutboundBytes))
        return false
    }

    private func dropSlowConsumer(_ reason: StompProtocolError) {
        broker.metrics.slowConsumers.increment()
        broker.logger.notice("dropping slow STOMP consumer", metadata: ["session": "\(id)", "reason": "\(reason.message)"])
        fail(reason, receiptId: nil)
    }
}

extension StompFrame {
    /// The value of a header the frame cannot do without.
    func required(_ name: String) throws(StompProtocolError) -> String {
        guard let value = headers[name] else { throw .missingHeader(name, command) }
        return value
    }
}
