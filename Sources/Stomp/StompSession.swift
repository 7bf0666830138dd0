import NIOCore
import Synchronization
import WebSocket

/// One client's STOMP session: the protocol state machine between a transport (TCP or our
/// WebSocket) and the broker. Confined to its channel's event loop; the transport handler feeds
/// it bytes and it writes frames back through the handler's context.
///
/// Frames are processed strictly in order. A frame whose handling is asynchronous (authentication,
/// authorization, an application handler) holds the frames behind it until it completes, so a
/// RECEIPT always follows the effect it confirms; the transport stops reading meanwhile once
/// ``readAheadBytes`` wait undecoded (at once before CONNECTED). A SUBSCRIBE that catches up
/// holds them only until its subscription is in place; its RECEIPT comes once it has caught up.
final class StompSession: @unchecked Sendable {
    /// Where the session stands.
    enum Phase {
        /// Waiting for CONNECT or STOMP.
        case awaitingConnect
        /// CONNECT received, the authenticator has not answered yet.
        case authenticating
        /// CONNECTED sent.
        case connected(StompVersion, StompPrincipal)
        /// DISCONNECT or ERROR: nothing more is read, the channel is closing.
        case closing
    }

    let id: String
    let broker: StompBroker
    let eventLoop: any EventLoop
    let allocator: ByteBufferAllocator
    /// The bearer token the transport carried (the WebSocket upgrade's), for the authenticator.
    let transportToken: String?
    /// Wraps encoded frames into what the transport's pipeline writes, given whether they are
    /// UTF-8 if that is known already.
    private let wrap: (ByteBuffer, Bool?) -> NIOAny
    /// Bounds the messages the transport assembles (a no-op where it has none).
    private let limitInbound: (ChannelHandlerContext, Int) -> Void
    /// Where fan-out writes a MESSAGE framed once for all WebSocket recipients (nil over TCP).
    private var frameWriter: WebSocketFrameWriter?
    private var context: ChannelHandlerContext?

    var phase = Phase.awaitingConnect
    var decoder: StompFrameDecoder
    private var inbound = ByteBuffer()
    var subscriptions: [String: Subscription] = [:]
    var pendingAckCount = 0
    var transactions: [String: [StompFrame]] = [:]
    private var busy = false
    /// Counts the frames that held the session's later ones (``handle(_:)``): a frame's answer
    /// ends the hold only while it is still that frame's.
    private var holdSerial: UInt64 = 0
    /// Set by a frame whose answer comes after the session may go on (a SUBSCRIBE that catches
    /// up): completes when the later frames may be handled.
    var releasesHoldEarly: EventLoopFuture<Void>?
    /// The last subscription's ``Subscription/serial``.
    var subscriptionSerial: UInt64 = 0
    /// The serials of subscriptions the server ended while they caught up: their SUBSCRIBE
    /// was answered by that refusal, and gets no RECEIPT when its catch-up stops.
    var endedWhileCatchingUp: Set<UInt64> = []
    /// The session gave the event loop back in the middle of its input and resumes shortly.
    private var yielding = false
    private var draining = false
    /// The transport asked to read while frames were held; the read is replayed when they are done.
    var readPending = false
    private var needsFlush = false
    /// Bytes written since the last flush (``flushIfMuchWaits()``).
    private var unflushedBytes = 0
    /// A session flushes itself once this much waits for the end of the pass: what a pass
    /// gathers for a subscriber stays bounded, and anything beyond reaches the channel, whose
    /// high-water mark then tells the publishers' back-pressure (NIO's default mark, 64 KiB).
    static let flushEarlyBytes = 64 * 1024
    /// Whether the session waits in its loop's ``StompFlushBatch``.
    var isInFlushBatch = false
    var heartBeat = StompHeartBeatTimers()

    init(broker: StompBroker, context: ChannelHandlerContext, transportToken: String?,
         wrap: @escaping (ByteBuffer, Bool?) -> NIOAny, frameWriter: WebSocketFrameWriter?,
         limitInbound: @escaping (ChannelHandlerContext, Int) -> Void) {
        self.id = broker.nextSessionId()
        self.broker = broker
        self.eventLoop = context.eventLoop
        self.allocator = context.channel.allocator
        self.context = context
        self.transportToken = transportToken
        self.wrap = wrap
        self.frameWriter = frameWriter
        self.limitInbound = limitInbound
        self.decoder = StompFrameDecoder(limits: broker.configuration.limits)
    }

    /// Whether inbound frames are held behind an asynchronous step or a yield.
    var isHoldingFrames: Bool { busy || yielding }

    /// While frames are held, a connected session reads on until this much input waits
    /// undecoded: a peer waiting for its answer (a phone for its receipt) sends nothing
    /// meanwhile, and its channel keeps its read interest instead of dropping and taking it back
    /// (two `epoll_ctl`s per held frame); one that sends on is stopped here. Over WebSocket the
    /// transport first completes the message it is reading, up to its message limit.
    static let readAheadBytes = 16 * 1024

    /// Whether the transport must stop reading: frames are held and either the session is not
    /// connected yet (nothing may follow a CONNECT until it is answered) or enough input waits.
    var holdsReads: Bool {
        isHoldingFrames && (!isConnected || inbound.readableBytes >= Self.readAheadBytes)
    }

    var channel: (any Channel)? { context?.channel }

    /// Whether more than the channel's high-water mark of bytes waits to be written to this
    /// open session, as the transport last said (``writabilityChanged(isWritable:)``). Any thread
    /// may ask. Fan-out asks it of every recipient of every message, so it is kept here, where
    /// delivery looks anyway, rather than asked of the channel (two more objects per recipient).
    var isBehind: Bool { behind.load(ordering: .relaxed) }
    private let behind = Atomic<Bool>(false)

    /// Catch-ups waiting for the channel to take more (``whenWritable()``).
    private var writableWaiters: [EventLoopPromise<Void>] = []

    /// The channel went over its high-water mark of bytes to write, or back under the low one.
    func writabilityChanged(isWritable: Bool) {
        behind.store(!isWritable && context != nil, ordering: .relaxed)
        if isWritable { resumeWritableWaiters() }
    }

    /// Completes once the channel takes more: at once unless more than its high-water mark of
    /// bytes waits to be written, else when it is back under the low one or the session ends.
    func whenWritable() -> EventLoopFuture<Void> {
        guard isBehind else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        writableWaiters.append(promise)
        return promise.futureResult
    }

    private func resumeWritableWaiters() {
        let waiters = writableWaiters
        writableWaiters = []
        for waiter in waiters { waiter.succeed() }
    }

    // MARK: Inbound

    /// Takes bytes from the transport and handles the complete frames in them, one at a time.
    func receive(_ bytes: ByteBuffer) {
        guard !isClosing else { return }
        heartBeat.lastReceived = .now()
        broker.metrics.bytesIn.increment(by: bytes.readableBytes)
        if inbound.readableBytes == 0 {
            inbound = bytes
        } else {
            inbound.writeImmutableBuffer(bytes)
        }
        // Until CONNECTED, a client has no business sending more than its CONNECT frame: what
        // waits undecoded is bounded by the size of one such frame.
        if !isConnected, inbound.readableBytes > broker.configuration.limits.maxConnectFrameSize {
            fail(StompProtocolError.tooMuchBeforeConnect(limit: broker.configuration.limits.maxConnectFrameSize), receiptId: nil)
            return
        }
        drain()
    }

    private var isClosing: Bool {
        if case .closing = phase { return true }
        return false
    }

    var isConnected: Bool {
        if case .connected = phase { return true }
        return false
    }

    /// Not signed in yet and not ending: the CONNECT deadline still applies.
    var isAwaitingConnect: Bool {
        switch phase {
        case .awaitingConnect, .authenticating: true
        case .connected, .closing: false
        }
    }

    /// Decodes and handles frames one at a time until one goes asynchronous, the input runs out,
    /// or this pass has handled its share; then the event loop serves other channels before the
    /// rest. Frames are decoded only when they are about to be handled, so a message packed with
    /// frames costs nothing until their turn; before CONNECTED only the CONNECT frame is.
    private func drain() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        var handled = 0
        while !busy, !yielding, !isClosing {
            if case .authenticating = phase { break }
            let frame: StompFrame?
            do {
                frame = try decoder.next(from: &inbound)
            } catch {
                fail(error, receiptId: nil)
                break
            }
            guard let frame else { break }
            broker.metrics.received(frame.command)
            handle(frame)
            handled += 1
            if handled == broker.configuration.framesPerPass, inbound.readableBytes > 0 {
                yielding = true
                eventLoop.execute {
                    self.yielding = false
                    self.drain()
                }
            }
        }
        if inbound.readableBytes == 0 {
            inbound = ByteBuffer()
        } else if inbound.readerIndex > 64 * 1024 {
            inbound.discardReadBytes()
        }
        if !holdsReads, readPending, !isClosing {
            readPending = false
            context?.read()
        }
        flush()
    }

    private func handle(_ frame: StompFrame) {
        let future: EventLoopFuture<Void>?
        do {
            future = try process(frame)
        } catch {
            failed(frame, error)
            return
        }
        let early = releasesHoldEarly
        releasesHoldEarly = nil
        guard let future else {
            completed(frame)
            return
        }
        busy = true
        holdSerial += 1
        let hold = holdSerial
        // Later than the answer's own callback, when both come at once: a SUBSCRIBE answered
        // without a catch-up is answered before the next frames run.
        early?.hop(to: eventLoop).whenComplete { _ in self.eventLoop.execute { self.endHold(hold) } }
        future.hop(to: eventLoop).whenComplete { result in
            switch result {
            case .success: self.completed(frame)
            case .failure(let error): self.failed(frame, error)
            }
            self.endHold(hold)
        }
    }

    /// Lets the session handle its next frames, if `hold` still holds them; else flushes what
    /// the answer wrote (a SUBSCRIBE's late RECEIPT).
    private func endHold(_ hold: UInt64) {
        guard busy, holdSerial == hold else {
            flush()
            return
        }
        busy = false
        drain()
    }

    /// Applies one frame; returns a future when the outcome is not known yet.
    private func process(_ frame: StompFrame) throws -> EventLoopFuture<Void>? {
        switch (phase, frame.command) {
        case (.closing, _):
            return nil
        case (.awaitingConnect, .connect), (.awaitingConnect, .stomp):
            return try connect(frame)
        case (.awaitingConnect, let command), (.authenticating, let command):
            throw StompProtocolError.notConnected(command)
        case (.connected, .connect), (.connected, .stomp):
            throw StompProtocolError.alreadyConnected
        case (.connected(let version, let principal), _):
            return try perform(frame, version: version, principal: principal)
        }
    }

    /// Applies a frame of a connected session (also used when a transaction commits).
    func perform(_ frame: StompFrame, version: StompVersion, principal: StompPrincipal) throws -> EventLoopFuture<Void>? {
        switch frame.command {
        case .send: return try send(frame, principal: principal)
        case .subscribe: return try subscribe(frame, version: version, principal: principal)
        case .unsubscribe: try unsubscribe(frame, version: version)
        case .ack, .nack:
            if let transaction = frame.headers["transaction"] {
                try hold(frame, in: transaction)
            } else {
                try acknowledge(frame, version: version)
            }
        case .begin, .commit, .abort: return try transaction(frame, version: version, principal: principal)
        case .disconnect: break  // completed(_:) sends the receipt, then closes
        case .connect, .stomp, .connected, .message, .receipt, .error:
            throw StompProtocolError.unexpectedFrame(frame.command)
        }
        return nil
    }

    private func completed(_ frame: StompFrame) {
        // Nothing may follow the ERROR that closes a session (a catch-up can end after it).
        guard !isClosing else { return }
        let receipt = frame.headers["receipt"].map { StompFrame(.receipt, headers: ["receipt-id": $0]) }
        if frame.command == .disconnect {
            closeAfterWriting(receipt)
        } else if let receipt, frame.command != .connect, frame.command != .stomp {
            write(receipt)
        }
    }

    private func failed(_ frame: StompFrame, _ error: any Error) {
        guard !(error is StompCatchUpEnded) else { return }
        let receiptId = frame.headers["receipt"]
        if let refusal = error as? StompRefusal {
            // A refused SUBSCRIBE names its id, so that a client with several can tell which.
            refuse(refusal, destination: frame.headers["destination"], receiptId: receiptId,
                   subscriptionId: frame.command == .subscribe ? frame.headers["id"] : nil)
        } else {
            fail(error, receiptId: receiptId)
        }
    }

    /// Called by the transport when the channel has gone.
    func end() {
        guard context != nil else { return }
        stop()
        context = nil
        frameWriter = nil
    }

    /// Leaves the broker: no more deliveries, frames or timers. Idempotent.
    private func stop() {
        behind.store(false, ordering: .relaxed)
        if case .connected(_, let principal) = phase {
            broker.metrics.sessions.decrement()
            broker.signedIn.withLock { $0.remove(self, userId: principal.userId) }
            broker.sessionChanged(.disconnected(principal, sessionId: id))
        }
        stopWaiting()
        phase = .closing
        heartBeat.cancel()
        for (id, subscription) in subscriptions {
            broker.unsubscribe(self, subscriptionId: id, from: subscription.key)
        }
        subscriptions = [:]
        endedWhileCatchingUp = []
        // Only now: a catch-up woken earlier would still find its subscription and write to it.
        resumeWritableWaiters()
        pendingAckCount = 0
        transactions = [:]
        inbound = ByteBuffer()
    }

    // MARK: Outbound

    /// Encodes and writes a frame generated by this session (not a fan-out MESSAGE). Over our
    /// WebSocket a frame nobody waits on is framed in place and handed to the WebSocket layer
    /// directly, as fan-out does: through the pipeline a RECEIPT took a boxed message, a handler
    /// walk, a cast and a second copy, a tenth of a durable chat post's event-loop work (issue 10).
    func write(_ frame: StompFrame, promise: EventLoopPromise<Void>? = nil) {
        // The decoder's version is the negotiated one from CONNECTED on, and stays so while closing.
        let version = decoder.version
        broker.metrics.sent(frame.command)
        // The command and headers are text: the frame is UTF-8 exactly when its body is.
        let isUTF8 = frame.body.readableBytes == 0 ? true : nil
        if promise == nil, let frameWriter, context != nil {
            let kind: WebSocketMessage.Kind = isUTF8 ?? WebSocketMessage.isText(frame.body) ? .text : .binary
            let prepared = WebSocketPreparedMessage(kind: kind, payloadCapacity: 64 + frame.body.readableBytes,
                                                    allocator: allocator) { StompFrameEncoder.write(frame, version: version, into: &$0) }
            broker.metrics.bytesOut.increment(by: prepared.message.data.readableBytes)
            wrote(prepared.message.data.readableBytes)
            frameWriter.write(prepared)
            return
        }
        var buffer = allocator.buffer(capacity: 64 + frame.body.readableBytes)
        StompFrameEncoder.write(frame, version: version, into: &buffer)
        write(bytes: buffer, isUTF8: isUTF8, promise: promise)
    }

    /// Writes encoded bytes; they leave at the next ``flush()``. Fan-out passes `counted: false`
    /// and counts the bytes of all its recipients at once, and says whether the shared bytes are
    /// UTF-8 (`isUTF8`), decided once for them all.
    func write(bytes: ByteBuffer, counted: Bool = true, isUTF8: Bool? = nil, promise: EventLoopPromise<Void>? = nil) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        if counted { broker.metrics.bytesOut.increment(by: bytes.readableBytes) }
        wrote(bytes.readableBytes)
        context.write(wrap(bytes, isUTF8), promise: promise)
    }

    /// Writes a fan-out MESSAGE from `cache`: over our WebSocket the frame shared by all its
    /// recipients, as it is, otherwise the encoded bytes. Returns the STOMP bytes written,
    /// which the caller counts.
    func writeMessage(from cache: inout StompMessageEncodingCache, subscription: String,
                      acknowledged: Bool, version: StompVersion) -> Int {
        guard let frameWriter, context != nil else {
            let bytes = cache.frame(subscription: subscription, acknowledged: acknowledged, version: version)
            write(bytes: bytes, counted: false, isUTF8: cache.isUTF8)
            return bytes.readableBytes
        }
        let prepared = cache.webSocketFrame(subscription: subscription, acknowledged: acknowledged, version: version)
        wrote(prepared.message.data.readableBytes)
        frameWriter.write(prepared)
        return prepared.message.data.readableBytes
    }

    private func wrote(_ byteCount: Int) {
        heartBeat.wroteSinceBeat = true
        needsFlush = true
        unflushedBytes += byteCount
    }

    /// Flushes now if ``flushEarlyBytes`` wait for the end of the pass (fan-out calls this after
    /// each delivery; other frames keep their flush points).
    func flushIfMuchWaits() {
        if unflushedBytes >= Self.flushEarlyBytes { flush() }
    }

    /// Tells the handlers in front of the session that it signed in (``StompAddressSlot``).
    func announceSignedIn() {
        context?.triggerUserOutboundEvent(StompSignedIn(), promise: nil)
    }

    /// Bounds what the transport assembles into one message to `size` bytes.
    func limitMessages(to size: Int) {
        if let context { limitInbound(context, size) }
    }

    func flush() {
        guard needsFlush, let context else { return }
        needsFlush = false
        unflushedBytes = 0
        context.flush()
    }

    func close() {
        stop()
        context?.close(promise: nil)
    }

    /// Answers a protocol violation (or an unexpected failure) with ERROR, then closes.
    func fail(_ error: any Error, receiptId: String?) {
        guard !isClosing else { return }
        var headers: StompHeaders = ["content-type": "text/plain"]
        let message: String
        switch error {
        case let error as StompProtocolError:
            message = error.message
            if case .unsupportedVersion = error { headers.add("version", StompVersion.supportedList) }
        case let refusal as StompRefusal:
            message = refusal.message
            headers.add("code", refusal.code)
        default:
            broker.logger.error("STOMP session failed", metadata: ["session": "\(id)", "error": "\(error)"])
            message = "internal error"
        }
        headers.add("message", message)
        if let receiptId { headers.add("receipt-id", receiptId) }
        closeAfterWriting(StompFrame(.error, headers: headers, text: message))
    }

    /// Writes a last frame (ERROR, or DISCONNECT's RECEIPT) and closes once it has left, or after
    /// a grace period for a peer that has stopped reading: the frame should reach it if it can,
    /// but a stalled peer cannot hold the session open.
    func closeAfterWriting(_ frame: StompFrame?) {
        stop()
        guard let frame else {
            close()
            return
        }
        let written = eventLoop.makePromise(of: Void.self)
        write(frame, promise: written)
        flush()
        let deadline = eventLoop.scheduleTask(in: broker.configuration.closeGracePeriod) { self.close() }
        written.futureResult.whenComplete { _ in
            deadline.cancel()
            self.close()
        }
    }
}
