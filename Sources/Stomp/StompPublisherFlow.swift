import NIOCore

/// Back-pressure on publishers, after RabbitMQ's credit flow: a session whose SEND reached
/// recipients of whom too many are behind (more than their channel's high-water mark of bytes
/// waiting to be written) is not read again until enough of them have caught up. The SEND's
/// completion waits for that, which holds the session's later frames and stops its transport
/// reading, so a broker past saturation queues in the publishers' sockets, not in memory.
///
/// One slow or stalled subscriber never pauses a room's publishers: it takes more than half of
/// the recipients, and at least two. A lone laggard is cut off as a slow consumer instead, and
/// a pause lasts at most ``StompBroker/Configuration/publisherPauseLimit``, after which
/// recipients still behind are cut off in the same way as more messages reach them.
enum StompPublisherFlow {
    /// How often a paused publisher looks at its recipients again.
    static let recheckInterval = TimeAmount.milliseconds(1)

    /// Whether so many of the recipients are behind that their publisher should wait.
    static func isCongested(_ groups: [StompSubscriptionRegistry.LoopGroup]) -> Bool {
        var recipients = 0
        var behind = 0
        for group in groups {
            recipients += group.subscribers.count
            for subscriber in group.subscribers where subscriber.session.isBehind {
                behind += 1
            }
        }
        return behind >= 2 && behind * 2 > recipients
    }

    /// `nil` if the recipients keep up; otherwise a future that completes once they do, or
    /// after `limit`.
    static func pause(for groups: [StompSubscriptionRegistry.LoopGroup], on eventLoop: any EventLoop,
                      broker: StompBroker) -> EventLoopFuture<Void>? {
        guard isCongested(groups) else { return nil }
        broker.metrics.publisherPauses.increment()
        broker.publisherPauseCount.add(1, ordering: .relaxed)
        let limit = broker.configuration.publisherPauseLimit
        let resumed = eventLoop.makePromise(of: Void.self)
        recheck(groups, deadline: .now() + limit, on: eventLoop, resumed: resumed)
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
