import NIOCore

/// Who listens to what, grouped by event loop so that a publication costs one hop per loop,
/// never one per recipient. Guarded by the broker's lock; values are copied out (copy-on-write)
/// so delivery happens outside it.
struct StompSubscriptionRegistry {
    /// One subscription of one session.
    struct Subscriber {
        let session: StompSession
        let subscriptionId: String
        let acknowledged: Bool
        /// The session's user, so that one user's subscriptions can be ended on every device.
        let userId: String
        /// The subscription's ``StompSession/Subscription/serial``: which subscription of that
        /// id this is, should the client reuse the id.
        let serial: UInt64
    }

    /// The subscribers of one destination that live on one event loop.
    struct LoopGroup {
        let eventLoop: any EventLoop
        /// The loop's sessions waiting for their flush, shared by every destination.
        let flushes: StompFlushBatch
        var subscribers: [Subscriber]
    }

    private struct Position: Hashable {
        let session: ObjectIdentifier
        let subscriptionId: String
    }

    private struct Destination {
        var groups: [LoopGroup] = []
        /// Where each subscriber sits (group, index), for O(1) removal when sessions come and go.
        var positions: [Position: (group: Int, index: Int)] = [:]
    }

    private var destinations: [String: Destination] = [:]
    /// One flush batch per event loop, made when the loop's first subscriber arrives.
    private var flushBatches: [ObjectIdentifier: StompFlushBatch] = [:]

    /// The subscribers of `key`, grouped by event loop.
    func groups(for key: String) -> [LoopGroup] {
        destinations[key]?.groups ?? []
    }

    /// The subscribers of `key`, and the registry's own copy of the key, which its
    /// subscriptions keep as their destination (``add(_:to:)``): a message naming its destination
    /// with this copy is recognized by every subscription without reading the bytes.
    func entry(for key: String) -> (key: String, groups: [LoopGroup]) {
        guard let index = destinations.index(forKey: key) else { return (key, []) }
        let (stored, destination) = destinations[index]
        return (stored, destination.groups)
    }

    /// Whether `key` has any subscriber.
    func hasSubscribers(_ key: String) -> Bool {
        destinations[key] != nil
    }

    /// Adds `subscriber`, and returns the registry's own copy of `key` (see ``entry(for:)``).
    @discardableResult
    mutating func add(_ subscriber: Subscriber, to key: String) -> String {
        var destination = destinations[key] ?? Destination()
        let loop = subscriber.session.eventLoop
        let group: Int
        if let existing = destination.groups.firstIndex(where: { $0.eventLoop === loop }) {
            group = existing
        } else {
            let flushes = flushBatches[ObjectIdentifier(loop)] ?? StompFlushBatch(eventLoop: loop)
            flushBatches[ObjectIdentifier(loop)] = flushes
            destination.groups.append(LoopGroup(eventLoop: loop, flushes: flushes, subscribers: []))
            group = destination.groups.count - 1
        }
        let position = Position(session: ObjectIdentifier(subscriber.session), subscriptionId: subscriber.subscriptionId)
        destination.positions[position] = (group, destination.groups[group].subscribers.count)
        destination.groups[group].subscribers.append(subscriber)
        destinations[key] = destination
        return destinations.index(forKey: key).map { destinations.keys[$0] } ?? key
    }

    mutating func remove(session: StompSession, subscriptionId: String, from key: String) {
        let position = Position(session: ObjectIdentifier(session), subscriptionId: subscriptionId)
        guard var destination = destinations[key],
              let (group, index) = destination.positions.removeValue(forKey: position) else { return }
        // Swap-remove: the last subscriber of the group takes the removed one's place.
        let last = destination.groups[group].subscribers.count - 1
        if index != last {
            let moved = destination.groups[group].subscribers[last]
            destination.groups[group].subscribers[index] = moved
            destination.positions[Position(session: ObjectIdentifier(moved.session),
                                           subscriptionId: moved.subscriptionId)] = (group, index)
        }
        destination.groups[group].subscribers.removeLast()
        destinations[key] = destination.positions.isEmpty ? nil : destination
    }
}
