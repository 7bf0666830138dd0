import NIOCore
import Synchronization

/// The sessions of one event loop that fan-out has written to since that loop last flushed them.
///
/// They are flushed together once the loop has handled all the reads and tasks at hand, not
/// after each message: a subscriber that gets many messages in one pass of its loop gets them in
/// one write, one system call, instead of one per message. On loopback that write is most of the
/// CPU a delivery costs, so under load this is what lets the broker keep up.
/// Confined to its event loop, but for ``backlog``, which any thread may read.
final class StompFlushBatch: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var due: [StompSession] = []
    /// The array `due` is swapped with while flushing, so that neither allocates once warm.
    private var flushing: [StompSession] = []
    private let handedOver = Atomic<Int>(0)

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Fan-out messages other loops handed to this one (``handOver(_:)``) that it has not
    /// delivered yet: the loop's own lag. Publishers elsewhere wait while it is too long
    /// (``StompPublisherFlow``); nothing else would stop them queueing here without bound.
    var backlog: Int { handedOver.load(ordering: .relaxed) }

    /// Runs a delivery of a message published on another loop, counted in ``backlog`` until done.
    func handOver(_ delivery: @escaping @Sendable () -> Void) {
        handedOver.add(1, ordering: .relaxed)
        eventLoop.execute {
            delivery()
            self.handedOver.subtract(1, ordering: .relaxed)
        }
    }

    /// Flushes `session` at the end of this pass of the loop (once, however often it is added).
    func add(_ session: StompSession) {
        guard !session.isInFlushBatch else { return }
        session.isInFlushBatch = true
        due.append(session)
        if due.count == 1 {
            // A task runs after the loop has handled every readable channel of this pass.
            eventLoop.execute { self.flush() }
        }
    }

    private func flush() {
        swap(&due, &flushing)
        for session in flushing {
            session.isInFlushBatch = false
            session.flush()
        }
        flushing.removeAll(keepingCapacity: true)
    }
}
