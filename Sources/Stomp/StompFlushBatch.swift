import NIOCore

/// The sessions of one event loop that fan-out has written to since that loop last flushed them.
///
/// They are flushed together once the loop has handled all the reads and tasks at hand, not
/// after each message: a subscriber that gets many messages in one pass of its loop gets them in
/// one write, one system call, instead of one per message. On loopback that write is most of the
/// CPU a delivery costs, so under load this is what lets the broker keep up.
/// Confined to its event loop.
final class StompFlushBatch: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var due: [StompSession] = []
    /// The array `due` is swapped with while flushing, so that neither allocates once warm.
    private var flushing: [StompSession] = []

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
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
