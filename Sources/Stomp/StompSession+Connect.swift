import NIOCore

extension StompSession {
    /// Starts the wait for CONNECT: a place among the sessions not signed in yet (pushing out
    /// the one that waited longest if they are too many), the deadline, and room for one
    /// CONNECT frame in the transport.
    func awaitConnect() {
        let limit = broker.configuration.maxUnauthenticatedSessions
        broker.metrics.unauthenticated.increment()
        if let pushedOut = broker.unauthenticated.withLock({ $0.admit(self, limit: limit) }) {
            broker.metrics.unauthenticated.decrement()
            broker.metrics.crowdedOut.increment()
            pushedOut.eventLoop.execute { pushedOut.giveUpWaiting(.crowdedOut(limit: limit)) }
        }
        limitMessages(to: broker.configuration.limits.maxConnectFrameSize)
        let timeout = broker.configuration.connectTimeout
        // Never cancelled: a cancel searches the event loop's whole timer heap, which holds every
        // session's timers. The deadline looks at the session when it falls instead.
        eventLoop.scheduleTask(in: timeout) {
            guard self.isAwaitingConnect else { return }
            self.broker.metrics.connectTimeouts.increment()
            self.giveUpWaiting(.connectTimeout(timeout))
        }
    }

    /// Ends a session that has not signed in: ERROR naming why, then the close.
    func giveUpWaiting(_ error: StompProtocolError) {
        guard !isConnected else { return }
        fail(error, receiptId: nil)
    }

    /// The session signed in or ended: it waits for CONNECT no more.
    func stopWaiting() {
        if broker.unauthenticated.withLock({ $0.remove(self) }) { broker.metrics.unauthenticated.decrement() }
    }

    /// CONNECT/STOMP: negotiates the version and heart-beats, then asks the authenticator.
    func connect(_ frame: StompFrame) throws -> EventLoopFuture<Void> {
        guard let version = StompVersion.negotiate(acceptVersion: frame.headers["accept-version"]) else {
            throw StompProtocolError.unsupportedVersion(offered: frame.headers["accept-version"] ?? "")
        }
        let clientBeat = version == .v1_0 ? StompHeartBeat(send: 0, receive: 0)
            : try StompHeartBeat(header: frame.headers["heart-beat"])
        phase = .authenticating
        let credentials = StompCredentials(headers: frame.headers, transportToken: transportToken)
        return broker.authenticator.authenticate(credentials, on: eventLoop)
            .flatMapErrorThrowing { error in
                let reason = (error as? StompRefusal)?.message ?? "authentication failed"
                throw StompRefusal(code: "auth.invalidToken", message: reason, endsSession: true)
            }
            .hop(to: eventLoop)
            .map { principal in self.connected(version: version, principal: principal, clientBeat: clientBeat) }
    }

    private func connected(version: StompVersion, principal: StompPrincipal, clientBeat: StompHeartBeat) {
        guard case .authenticating = phase else { return }
        phase = .connected(version, principal)
        decoder.version = version
        broker.metrics.sessions.increment()
        broker.signedIn.withLock { $0.add(self, userId: principal.userId) }
        broker.sessionChanged(.connected(principal, sessionId: id))
        stopWaiting()
        announceSignedIn()
        limitMessages(to: broker.configuration.limits.maxFrameSize)
        var headers: StompHeaders = ["version": version.rawValue, "session": id, "server": broker.configuration.serverName]
        if version != .v1_0 {
            let serverBeat = broker.configuration.heartBeat
            headers.add("heart-beat", serverBeat.header)
            let (sendEvery, expectEvery) = serverBeat.negotiated(with: clientBeat)
            startHeartBeats(sendEvery: sendEvery, expectEvery: expectEvery)
        }
        headers.add("user-name", principal.userId)
        write(StompFrame(.connected, headers: headers))
    }

    private func startHeartBeats(sendEvery: TimeAmount?, expectEvery: TimeAmount?) {
        heartBeat.running = true
        if let sendEvery {
            // Ticking at half the interval bounds the silence between two writes by one interval.
            beat(every: .nanoseconds(max(sendEvery.nanoseconds / 2, 1)))
        }
        if let expectEvery {
            let window = TimeAmount.nanoseconds(Int64(Double(expectEvery.nanoseconds) * broker.configuration.heartBeatTolerance))
            heartBeat.lastReceived = .now()
            // Checking at half the interval keeps detection within the window plus half a beat.
            checkHeartBeats(every: .nanoseconds(max(expectEvery.nanoseconds / 2, 1)), window: window)
        }
    }

    // Heart-beat timers are one-shot, each scheduling the next while the session runs, and are
    // never cancelled: a cancel searches the event loop's whole timer heap, which holds every
    // session's timers, so ending sessions one by one would cost the square of their number.

    private func beat(every tick: TimeAmount) {
        eventLoop.scheduleTask(in: tick) {
            guard self.heartBeat.running else { return }
            self.sendHeartBeat()
            self.beat(every: tick)
        }
    }

    private func checkHeartBeats(every check: TimeAmount, window: TimeAmount) {
        eventLoop.scheduleTask(in: check) {
            guard self.heartBeat.running else { return }
            guard NIODeadline.now() - self.heartBeat.lastReceived <= window else {
                self.broker.metrics.heartBeatTimeouts.increment()
                self.fail(StompProtocolError.heartBeatTimeout(window: window), receiptId: nil)
                return
            }
            self.checkHeartBeats(every: check, window: window)
        }
    }

    /// Sends an EOL unless something else went out since the last beat (any frame counts).
    private func sendHeartBeat() {
        guard heartBeat.wroteSinceBeat == false else {
            heartBeat.wroteSinceBeat = false
            return
        }
        var eol = allocator.buffer(capacity: 1)
        eol.writeInteger(UInt8(ascii: "\n"))
        write(bytes: eol)
        heartBeat.wroteSinceBeat = false
        flush()
    }
}

/// A session's heart-beat bookkeeping: whether its timers run, and what they look at.
struct StompHeartBeatTimers {
    /// The timers go on while this holds; each stops at its next tick once it does not.
    var running = false
    var lastReceived = NIODeadline.now()
    var wroteSinceBeat = false

    mutating func cancel() {
        running = false
    }
}
