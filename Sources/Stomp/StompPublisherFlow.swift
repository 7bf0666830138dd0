import NIOCore

/// Back-pressure on publishers, after RabbitMQ's credit flow: a session whose SEND reached
/// recipients of whom too many are behind (more than their channel's high-water mark of bytes
/// waiting to be written) is not read again until enough of them have caught up. The SEND's
/// completion waits for that, which holds the session's later frames and, past
/// ``StompSession/readAheadBytes`` of them, stops its transport reading, so a broker past
/// saturation queues in the publishers' sockets, not in memory.
///
/// One slow or stalled subscriber never pauses a room's publishers: it takes more than half of
/// the recipients, and at least two. A lone laggard is cut off as a slow consumer instead, and
/// a pause lasts at most ``StompBroker/Configuration/publisherPauseLimit``, after which
/// recipients still behind are cut off in the same way as more messages reach them.
///
/// The broker's own lag pauses a publisher too: when another event loop holding some of the
/// recipients has more than ``maximumBacklog`` messages handed to it and not yet delivered
/// (``StompFlushBatch/backlog``), say because both loops share one core. Those messages wait
/// in the loop's task queue, where no channel's high-water mark sees them.
enum StompPublisherFlow {
    /// How often a paused publisher looks at its recipients again.
    static let recheckInterval = TimeAmount.milliseconds(1)

    /// The most fan-out messages another loop may hold undelivered before a publisher waits:
    /// a few passes' worth of SENDs (``StompBroker/Configuration/framesPerPass`` is 64).
    static let maximumBacklog = 256

    /// The recipients of one SEND, with how many of those on the publisher's own loop were
    /// behind once it was written to them (counted during delivery, so that the common case,
    /// nobody behind, costs no second look at every session).
    struct Recipients {
        let groups: [StompSubscriptionRegistry.LoopGroup]
        let behindHere: Int
    }

    /// Whether so many of the recipients are behind that their publisher should wait. Recipients
    /// on other loops are asked now; those on this loop were counted during delivery.
    static func isCongested(_ recipients: Recipients) -> Bool {
        var count = 0
        var behind = recipients.behindHere
        for group in recipients.groups {
            count += group.subscribers.count
            guard !group.eventLoop.inEventLoop else { continue }
            if isLagging(group) { return true }
            behind += behindCount(group)
        }
        return isCongested(behind: behind, of: count)
    }

    /// The same question asked again of every recipient, as a paused publisher does.
    static func isCongested(_ groups: [StompSubscriptionRegistry.LoopGroup]) -> Bool {
        var count = 0
        var behind = 0
        for group in groups {
            count += group.subscribers.count
            if !group.eventLoop.inEventLoop, isLagging(group) { return true }
            behind += behindCount(group)
        }
        return isCongested(behind: behind, of: count)
    }

    private static func isCongested(behind: Int, of recipients: Int) -> Bool {
        behind >= 2 && behind * 2 > recipients
    }

    /// Whether the group's loop holds too many messages handed over from other loops.
    private static func isLagging(_ group: StompSubscriptionRegistry.LoopGroup) -> Bool {
        group.flushes.backlog > maximumBacklog
    }

    private static func behindCount(_ group: StompSubscriptionRegistry.LoopGroup) -> Int {
        var behind = 0
        for subscriber in group.subscribers where subscriber.session.isBehind {
            behind += 1
        }
        return behind
    }

    /// `nil` if the recipients keep up; otherwise a future that completes once they do, or
    /// after `limit`.
    static func pause(for recipients: Recipients, on eventLoop: any EventLoop,
                      broker: StompBroker) -> EventLoopFuture<Void>? {
        guard isCongested(recipients) else { return nil }
        broker.metrics.publisherPauses.increment()
        broker.publisherPauseCount.add(1, ordering: .relaxed)
        let limit = broker.configuration.publisherPauseLimit
        let resumed = eventLoop.makePromise(of: Void.self)
        recheck(recipients.groups, deadline: .now() + limit, on: eventLoop, resumed: resumed)
        return resumed.futureResult
    }

    private static func recheck(_ groups: [StompSubscriptionRegistry.LoopGroup], deadline: NIODeadline,
                                on eventLoop: any EventLoop, resumed: EventLoopPromise<Void>) {
        eventLoop.scheduleTask(in: recheckInterval) {
            if isCongested(groups) && NIODeadline.now() < deadline {
                recheck(groups, deadline: deadline, on: eventLoop, resumed: resumed)
            } else {
                resumed.succeed()
            }
        }
    }
}
