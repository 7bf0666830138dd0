import NIOCore

/// The WebSocket layer of one upgraded connection: bytes below, ``WebSocketMessage`` above.
///
/// Parses and checks frames, answers pings, runs the closing handshake and the idle ping,
/// and applies permessage-deflate. One handler instead of a decoder/encoder/assembler chain
/// keeps the per-connection footprint small: an idle connection holds no buffers at all.
final class WebSocketConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = WebSocketMessage
    typealias OutboundIn = WebSocketMessage
    typealias OutboundOut = ByteBuffer

    private enum State {
        case open
        /// The server sent its close frame and waits for the peer's. `inputUsable` is false
        /// after a framing error: the stream cannot be parsed any further.
        case closing(sent: WebSocketClosed, inputUsable: Bool)
        case closed
    }

    private let configuration: WebSocketConfiguration
    private var state = State.open
    private var decoder: WebSocketDecoder
    private let encoder: WebSocketMessageEncoder
    /// Bytes of an incomplete frame, kept between reads.
    private var unparsed: ByteBuffer?
    /// Frames written since the last flush, back to back in one buffer: the messages a
    /// subscriber gets in one pass of the event loop leave in one write, and a small message
    /// needs no buffer of its own. `nil` between flushes, so an idle connection holds nothing.
    private var unflushed: ByteBuffer?
    /// Whether `unflushed` is a prepared message's frame, shared with other connections
    /// (``write(_:context:)``): written as it is when it leaves alone, copied into a buffer of
    /// this connection's own before anything is appended to it.
    private var unflushedIsShared = false
    private var keepAlive: WebSocketKeepAlive?

    init(configuration: WebSocketConfiguration, perMessageDeflate: PerMessageDeflateParameters?) {
        self.configuration = configuration
        // Each direction has its own zlib stream.
        let deflate = { () -> PerMessageDeflate? in
            guard let perMessageDeflate, let settings = configuration.perMessageDeflate else { return nil }
            return PerMessageDeflate(parameters: perMessageDeflate, configuration: settings)
        }
        self.decoder = WebSocketDecoder(maximumMessageSize: configuration.maximumMessageSize, deflate: deflate())
        self.encoder = WebSocketMessageEncoder(deflate: deflate())
        self.keepAlive = configuration.idlePingInterval.map {
            WebSocketKeepAlive(interval: $0, deadPeerTimeout: configuration.deadPeerTimeout)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let keepAlive { self.scheduleKeepAlive(in: keepAlive.interval, context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Its timers find it closed when they fall (they are never cancelled, see below).
        self.state = .closed
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.keepAlive?.peerWasHeard()
        guard self.isReading else { return }
        var bytes = Self.unwrapInboundIn(data)
        if var earlier = self.unparsed {
            self.unparsed = nil
            earlier.writeImmutableBuffer(bytes)
            bytes = earlier
        }
        do {
            while self.isReading, let event = try self.decoder.next(from: &bytes) {
                try self.handle(event, context: context)
            }
        } catch {
            self.fail(error, inputUsable: self.decoder.framingIntact, context: context)
            return
        }
        guard self.isReading, bytes.readableBytes > 0 else { return }
        bytes.discardReadBytes()
        let missing = self.decoder.pendingPayloadLength - bytes.readableBytes
        if missing > 0 { bytes.reserveCapacity(minimumWritableBytes: missing) }
        self.unparsed = bytes
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // The peer will send nothing more, not even a close frame: waiting is pointless.
            self.finish(context: context)
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.finish(context: context)
        context.fireChannelInactive()
    }

    private var isReading: Bool {
        switch self.state {
        case .open, .closing(_, inputUsable: true): return true
        case .closing, .closed: return false
        }
    }

    private func handle(_ event: WebSocketDecoder.Event, context: ChannelHandlerContext) throws(WebSocketProtocolError) {
        switch event {
        case .ping(let payload):
            guard case .open = self.state else { return }
            self.send(WebSocketFrame(opcode: .pong, payload: payload), context: context, promise: nil)
            context.flush()
        case .pong:
            return  // unsolicited or not, any traffic already counts as a sign of life
        case .close(let payload):
            try self.receivedClose(payload, context: context)
        case .message(let message):
            guard case .open = self.state else { return }  // data after our close frame is dropped
            context.fireChannelRead(Self.wrapInboundOut(message))
        }
    }

    private func receivedClose(_ payload: ByteBuffer, context: ChannelHandlerContext) throws(WebSocketProtocolError) {
        switch self.state {
        case .open:
            let closed = try WebSocketClosePayload.parse(payload)
            // Echo the peer's close (an empty one for an empty one), then drop TCP.
            let echo = closed.code == .noStatusReceived ? ByteBuffer() : payload
            self.state = .closed
            context.fireUserInboundEventTriggered(closed)
            let frame = self.frameBytes(WebSocketFrame(opcode: .close, payload: echo), context: context)
            self.writeUnflushed(context: context, promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .closing:
            // The peer answered our close: the handshake is complete.
            self.finish(context: context)
            context.close(promise: nil)
        case .closed:
            return
        }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        self.write(Self.unwrapOutboundIn(data), context: context, promise: promise)
    }

    /// A prepared message (``WebSocketFrameWriter``): its frame is used as it is, unless this
    /// connection compresses.
    func write(_ prepared: WebSocketPreparedMessage, context: ChannelHandlerContext) {
        guard case .open = self.state else { return }
        guard !self.encoder.compresses else {
            self.write(prepared.message, context: context, promise: nil)
            return
        }
        if self.unflushed == nil {
            // The common case under light load: one message per flush, written without a copy.
            self.unflushed = prepared.frame
            self.unflushedIsShared = true
        } else if prepared.message.data.readableBytes > WebSocketMessageEncoder.coalescingLimit {
            self.writeUnflushed(context: context, promise: nil)
            context.write(Self.wrapOutboundOut(prepared.frame), promise: nil)
        } else {
            self.ownUnflushed(context: context)
            self.unflushed!.writeImmutableBuffer(prepared.frame)
        }
    }

    private func write(_ message: WebSocketMessage, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard case .open = self.state else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        let allocator = context.channel.allocator
        self.ownUnflushed(context: context)
        do {
            // Appended in place (`unflushed!`), so the buffer stays uniquely owned and grows
            // without a copy.
            let large = try self.encoder.encode(message, appendingTo: &self.unflushed!, allocator: allocator)
            if let large {
                self.writeUnflushed(context: context, promise: nil)
                context.write(Self.wrapOutboundOut(large), promise: promise)
            } else if let promise {
                self.writeUnflushed(context: context, promise: promise)
            }
        } catch {
            promise?.fail(error)
        }
    }

    func flush(context: ChannelHandlerContext) {
        self.writeUnflushed(context: context, promise: nil)
        context.flush()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let limit = event as? WebSocketMessageSizeLimit {
            self.decoder.maximumMessageSize = min(limit.bytes, self.configuration.maximumMessageSize)
            promise?.succeed()
            return
        }
        guard let request = event as? WebSocketCloseRequest else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        let closed = WebSocketClosed(code: request.code, reason: request.reason)
        self.startClosing(closed, inputUsable: true, context: context, promise: promise)
    }

    /// Closing the channel from above runs the closing handshake first.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        switch (self.state, mode) {
        case (.open, .all):
            self.startClosing(WebSocketClosed(code: .normalClosure), inputUsable: true, context: context, promise: nil)
            context.channel.closeFuture.cascade(to: promise)
        case (.closing, .all):
            context.channel.closeFuture.cascade(to: promise)
        default:
            context.close(mode: mode, promise: promise)
        }
    }

    // MARK: Closing

    /// Fails the connection with the error's close code (RFC 6455 §7.1.7).
    private func fail(_ error: WebSocketProtocolError, inputUsable: Bool, context: ChannelHandlerContext) {
        self.unparsed = nil
        guard case .open = self.state else {
            // Garbage while waiting for the peer's close: stop waiting.
            self.finish(context: context)
            context.close(promise: nil)
            return
        }
        let closed = WebSocketClosed(code: error.code, reason: error.reason)
        self.startClosing(closed, inputUsable: inputUsable, context: context, promise: nil)
        if !inputUsable {
            // Nothing more can be parsed, so send a FIN as well; the peer then closes its side.
            context.close(mode: .output, promise: nil)
        }
    }

    private func startClosing(
        _ closed: WebSocketClosed,
        inputUsable: Bool,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>?
    ) {
        guard case .open = self.state else {
            promise?.succeed()
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: self.configuration.closeTimeout) {
            guard case .closing = self.state else { return }
            self.finish(context: context)
            context.close(promise: nil)
        }
        self.state = .closing(sent: closed, inputUsable: inputUsable)
        let payload = WebSocketClosePayload.make(code: closed.code, reason: closed.reason)
        self.send(WebSocketFrame(opcode: .close, payload: payload), context: context, promise: promise)
        context.flush()
    }

    /// Ends the session once and tells the application why it ended.
    private func finish(context: ChannelHandlerContext) {
        let event: WebSocketClosed
        switch self.state {
        case .open:
            event = WebSocketClosed(code: .abnormalClosure)
        case .closing(let sent, _):
            event = sent
        case .closed:
            return
        }
        self.state = .closed
        self.unparsed = nil
        self.unflushed = nil
        self.unflushedIsShared = false
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Idle ping

    // The timers (idle ping, close handshake) are never cancelled: a cancel searches the event
    // loop's whole timer heap, which holds every session's timers, so ending sessions one by one
    // would cost the square of their number. Each looks at the state when it falls instead.

    private func scheduleKeepAlive(in delay: TimeAmount, context: ChannelHandlerContext) {
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            self.keepAliveTimerFired(context: context)
        }
    }

    private func keepAliveTimerFired(context: ChannelHandlerContext) {
        guard case .open = self.state, let decision = self.keepAlive?.timerFired() else { return }
        switch decision {
        case .waitAgain(let delay):
            self.scheduleKeepAlive(in: delay, context: context)
        case .ping(let delay):
            self.send(WebSocketFrame(opcode: .ping, payload: ByteBuffer()), context: context, promise: nil)
            context.flush()
            self.scheduleKeepAlive(in: delay, context: context)
        case .dropDeadPeer:
            self.finish(context: context)
            context.close(promise: nil)
        }
    }

    // MARK: Writing frames

    /// Room for a few chat messages; the buffer grows when a pass brings more.
    private static let unflushedCapacity = 1024

    /// Makes `unflushed` a buffer of this connection's own that frames can be appended to,
    /// holding what waits already.
    private func ownUnflushed(context: ChannelHandlerContext) {
        if self.unflushedIsShared, let shared = self.unflushed,
           shared.readableBytes > WebSocketFrame.maximumServerHeaderSize + WebSocketMessageEncoder.coalescingLimit {
            // A large frame is not copied: it leaves as it is, ahead of what follows.
            self.writeUnflushed(context: context, promise: nil)
        }
        guard self.unflushedIsShared || self.unflushed == nil else { return }
        var own = context.channel.allocator.buffer(capacity: Self.unflushedCapacity)
        if let shared = self.unflushed { own.writeImmutableBuffer(shared) }
        self.unflushed = own
        self.unflushedIsShared = false
    }

    /// Hands the frames gathered since the last flush to the channel, as one buffer.
    private func writeUnflushed(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard let frames = self.unflushed else {
            promise?.succeed()
            return
        }
        self.unflushed = nil
        self.unflushedIsShared = false
        guard frames.readableBytes > 0 else {
            promise?.succeed()
            return
        }
        context.write(Self.wrapOutboundOut(frames), promise: promise)
    }

    /// Writes a control frame, after the data frames written before it.
    private func send(_ frame: WebSocketFrame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        self.writeUnflushed(context: context, promise: nil)
        context.write(Self.wrapOutboundOut(self.frameBytes(frame, context: context)), promise: promise)
    }

    private func frameBytes(_ frame: WebSocketFrame, context: ChannelHandlerContext) -> ByteBuffer {
        var buffer = context.channel.allocator.buffer(
            capacity: WebSocketFrame.maximumServerHeaderSize + frame.payload.readableBytes
        )
        frame.write(into: &buffer)
        return buffer
    }
}
