import NIOCore

/// Runs the tasks that prefer it on one event loop: an HTTP connection's request handling,
/// on the loop that reads and writes its socket.
///
/// On Swift's cooperative pool every request crossed threads twice, from the loop to a pool
/// thread when the request arrived and back when the response was written, each a wake-up
/// through the kernel: a date-sorted feed request took a quarter less CPU without them, and a
/// health check as little as Hummingbird's hello world (issue 21, docs/benchmarks.md).
/// On the connection's own loop both hand-offs are an append to the loop's task queue. The
/// cost: a request's work holds up the loop's other connections while it runs, so request
/// paths must not block (short reads are inline, longer ones go to the database pool, whose
/// answer comes back here).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
