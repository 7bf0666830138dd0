import HTTPLoadCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// One open-loop run, confined to a single event loop: requests leave on the timetable
/// whether or not earlier ones were answered, and each latency runs from the time the
/// request was DUE, not from when a connection was free to send it. A server that
/// stalls therefore shows its stall in every request that waited behind it (no
/// coordinated omission). Due requests that find every connection busy wait in order
/// (the backlog) and leave as connections free up.
final class LoadRun {
    /// What to run against and how hard.
    struct Settings: Sendable {
        var host: String
        var port: Int
        var connections: Int
        var timetable: Timetable
        /// How long to wait for the last answers after the last request was due.
        var drainTimeout: TimeAmount
    }

    private let loop: any EventLoop
    private let settings: Settings
    private let heads: [HTTPRequestHead]
    private let finished: EventLoopPromise<LoadReport>
    private var timetable: Timetable { settings.timetable }

    private var connections: [LoadConnection] = []
    /// Connections with nothing in flight, oldest first, so that work spreads over all of
    /// them (and over the server's event loops) instead of piling on the last one freed.
    private var idle = CircularBuffer<LoadConnection>()
    private var start = NIODeadline.now()
    /// Requests below this number have been sent; from it up to the due count, the backlog.
    private var nextToSend = 0
    /// Requests answered or failed, warm-up included: the run ends when all are.
    private var settled = 0
    /// Responses, warm-up included: the work the server did, for its CPU time per request.
    private var responses = 0
    private var done = false
    private var tally = LoadTally()

    private init(loop: any EventLoop, settings: Settings, heads: [HTTPRequestHead]) {
        self.loop = loop
        self.settings = settings
        self.heads = heads
        self.finished = loop.makePromise()
    }

    /// Opens the connections, then runs the timetable; the future holds the figures.
    static func start(_ settings: Settings, heads: [HTTPRequestHead], on loop: any EventLoop) -> EventLoopFuture<LoadReport> {
        loop.preconditionInEventLoop()
        let run = LoadRun(loop: loop, settings: settings, heads: heads)
        let opened = (0..<settings.connections).map { _ in run.connect() }
        EventLoopFuture.andAllSucceed(opened, on: loop).assumeIsolated().whenComplete { result in
            switch result {
            case .success: run.begin()
            case .failure(let error):
                // Done before closing, so that the connections that did open are not replaced.
                run.done = true
                run.closeAll()
                run.finished.fail(error)
            }
        }
        return run.finished.futureResult
    }

    private func connect() -> EventLoopFuture<Void> {
        let run = NIOLoopBound(self, eventLoop: loop)
        return ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(LoadConnection(run: run.value))
                }
            }
            .connect(host: settings.host, port: settings.port)
            .map { _ in }
    }

    private func begin() {
        start = .now() + .milliseconds(10)
        let isolated = loop.assumeIsolated()
        scheduleTick(at: start)
        isolated.scheduleTask(deadline: dueTime(of: timetable.warmUpCount)) {
            self.tally.beginMeasuring()
        }
        isolated.scheduleTask(deadline: dueTime(of: timetable.totalCount - 1) + settings.drainTimeout) { self.finish() }
    }

    /// Sends what is due on the connections that are free; returns how many requests are due.
    @discardableResult
    private func pump() -> Int {
        let due = timetable.dueCount(after: (NIODeadline.now() - start).nanoseconds)
        while nextToSend < due, let connection = idle.popFirst() {
            connection.send(nextToSend, head: heads[nextToSend % heads.count])
            nextToSend += 1
        }
        tally.noteBacklog(due - nextToSend)
        return due
    }

    /// The timer: sends what is due and sleeps until the next request is. How late it wakes
    /// is the load generator's own lag (a busy machine), apart from the server's.
    fileprivate func tick(scheduledFor deadline: NIODeadline) {
        guard !done else { return }
        if timetable.isMeasured(nextToSend) { tally.noteWakeUp(lateBy: (NIODeadline.now() - deadline).nanoseconds) }
        let due = pump()
        if due < timetable.totalCount { scheduleTick(at: dueTime(of: due)) }
    }

    private func scheduleTick(at deadline: NIODeadline) {
        // Throws only once the loop is shutting down, when there is nothing left to send.
        _ = try? loop.assumeIsolated().scheduleCallback(at: deadline, handler: Tick(run: self, deadline: deadline))
    }

    private func dueTime(of number: Int) -> NIODeadline {
        start + .nanoseconds(timetable.offset(of: number))
    }

    func connectionReady(_ connection: LoadConnection) {
        connections.append(connection)
        if done { connection.close() } else { idle.append(connection) }
    }

    func answered(_ number: Int, status: Int, bodyBytes: Int, by connection: LoadConnection) {
        if timetable.isMeasured(number) {
            let now = NIODeadline.now()
            tally.answer(latency: (now - dueTime(of: number)).nanoseconds, status: status, bodyBytes: bodyBytes, at: now)
        }
        settled += 1
        responses += 1
        idle.append(connection)
        pump()
        if settled == timetable.totalCount { finish() }
    }

    /// A connection closed: what it had in flight failed, and a new one takes its place.
    func connectionLost(_ connection: LoadConnection, inFlight: Int?) {
        connections.removeAll { $0 === connection }
        if let index = idle.firstIndex(where: { $0 === connection }) { idle.remove(at: index) }
        guard !done else { return }
        if let number = inFlight {
            if timetable.isMeasured(number) { tally.fail() }
            settled += 1
            if settled == timetable.totalCount { return finish() }
        }
        reconnect()
    }

    private func reconnect() {
        connect().assumeIsolated().whenFailure { _ in
            guard !self.done else { return }
            self.loop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { self.reconnect() }
        }
    }

    /// Ends the run: every measured request still unanswered counts with the time it has
    /// waited so far, a lower bound, so that a stalled server cannot look fast.
    private func finish() {
        guard !done else { return }
        done = true
        let now = NIODeadline.now()
        let waiting = connections.compactMap(\.inFlight) + Array(nextToSend..<timetable.totalCount)
        for number in waiting where timetable.isMeasured(number) && dueTime(of: number) <= now {
            tally.giveUp(latency: (now - dueTime(of: number)).nanoseconds)
        }
        closeAll()
        finished.succeed(
            tally.report(settings, responses: responses, measuringFrom: dueTime(of: timetable.warmUpCount), until: now))
    }

    private func closeAll() {
        for connection in connections { connection.close() }
    }
}

/// Wakes the run when the next request is due; a callback handler rather than a closure,
/// so that a timer costs no allocation.
private struct Tick: NIOScheduledCallbackHandler {
    let run: LoadRun
    let deadline: NIODeadline

    func handleScheduledCallback(eventLoop: some EventLoop) {
        run.tick(scheduledFor: deadline)
    }
}
