import NIOCore
import NIOHTTP1

/// Holds the door of one HTTP connection on the main port: a client that is slow, idle,
/// oversized, malformed or too numerous is answered and closed instead of holding a file
/// descriptor for ever (``HTTPConnectionLimits``).
///
/// Sits right after NIO's upgrade handler, so it sees each request that stays HTTP and every
/// response; a connection upgraded to WebSocket removes it (its slot for the client address
/// goes with it). Parse errors of the HTTP decoder pass through it: before the router has a
/// request they are answered here (400, or 431 for an oversized head); once it has one, the
/// router answers and the connection closes after that answer.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Request {
        /// No head yet. `begun`: the head deadline runs (the connection is new, or a byte of the
        /// next request arrived); otherwise the keep-alive idle timeout does.
        case awaitingHead(begun: Bool)
        /// The head went to the router; this many body bytes followed. The body deadline runs
        /// while the server waits for the client's next bytes.
        case receiving(bodyBytes: Int)
        /// The whole request went to the router.
        case received
        /// Refused here: nothing more is read.
        case refused
    }

    private let policy: ConnectionPolicy
    private var limits: HTTPConnectionLimits { policy.limits }
    private var refusals: ConnectionRefusals { policy.refusals }
    private var metrics: HTTPRefusalMetrics { policy.metrics }

    private var request = Request.awaitingHead(begun: true)
    /// A response head went out and its end has not.
    private var responding = false
    /// The current request's response has ended.
    private var answered = false
    private var closeAfterResponse = false
    private var deadline = ConnectionDeadline()
    /// The address whose slot this connection holds.
    private var slot: String?
    private var started = false

    init(policy: ConnectionPolicy) {
        self.policy = policy
    }

    // MARK: Lifetime

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.cancelChecks()
        if let slot { policy.perAddress.release(slot) }
        slot = nil
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        // Counted for the connection's whole life, upgraded or not: it holds a descriptor.
        guard policy.open.admit() else {
            metrics.count(.fileLimit)
            refuse(refusals.busy, context: context)
            return
        }
        let open = policy.open
        context.channel.closeFuture.whenComplete { _ in open.release() }
        if let address = context.channel.remoteAddress?.ipAddress, policy.countsAddress(address) {
            guard policy.perAddress.admit(address) else {
                metrics.count(.perAddress)
                refuse(refusals.busy, context: context)
                return
            }
            slot = address
        }
        arm(TimeAmount(limits.headTimeout), context: context)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = Self.unwrapInboundIn(data)
        if case .awaitingHead = request, !Self.isHead(part) {
            // The upgrade handler keeps the head of a refused upgrade: the rest is that request's.
            disarm()
            answered = false
            request = .receiving(bodyBytes: 0)
        }
        switch (part, request) {
        case (.head(let head), .awaitingHead):
            disarm()
            answered = false
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > limits.maxBodySize {
                metrics.count(.bodyTooLarge)
                refuse(refusals.bodyTooLarge, context: context)
                return
            }
            request = .receiving(bodyBytes: 0)
            context.fireChannelRead(data)
        case (.body(let bytes), .receiving(let received)):
            let total = received + bytes.readableBytes
            guard total <= limits.maxBodySize else {
                metrics.count(.bodyTooLarge)
                refuse(refusals.bodyTooLarge, context: context)
                return
            }
            request = .receiving(bodyBytes: total)
            disarm()
            context.fireChannelRead(data)
        case (.end, .receiving):
            request = .received
            disarm()
            context.fireChannelRead(data)
            if answered { awaitNextRequest(context: context) }
        default:
            return  // refused, or a part the decoder cannot produce in this order
        }
    }

    private static func isHead(_ part: HTTPServerRequestPart) -> Bool {
        if case .head = part { return true }
        return false
    }

    /// A read that produced no head yet starts the next request's head deadline.
    func channelReadComplete(context: ChannelHandlerContext) {
        if case .awaitingHead(begun: false) = request {
            request = .awaitingHead(begun: true)
            arm(TimeAmount(limits.headTimeout), context: context)
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        switch request {
        case .awaitingHead:
            let oversized = parserError == .headerOverflow
            metrics.count(oversized ? .headTooLarge : .malformed)
            refuse(oversized ? refusals.headTooLarge : refusals.malformed, context: context)
        case .receiving, .received:
            // The router has the request: it answers (a 400), then the connection closes.
            metrics.count(.malformed)
            request = .refused
            closeAfterResponse = true
            if answered {
                context.close(promise: nil)
            } else {
                context.fireErrorCaught(error)
            }
        case .refused:
            return
        }
    }

    // MARK: Outbound

    /// The server asks for more of a body: from now on the client has the body timeout to send
    /// some. The deadline runs only while the server waits, so a route that reads slowly (back
    /// pressure holds the reads) is never taken for a slow client.
    func read(context: ChannelHandlerContext) {
        if case .receiving = request { arm(TimeAmount(limits.bodyTimeout), context: context) }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(var head):
            responding = true
            guard closeAfterResponse else { break }
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
            return
        case .body:
            break
        case .end:
            responding = false
            answered = true
            if closeAfterResponse {
                context.writeAndFlush(data).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                promise?.succeed()
                return
            }
            if case .received = request { awaitNextRequest(context: context) }
        }
        context.write(data, promise: promise)
    }

    // MARK: Deadlines and refusals

    /// The exchange is over: the connection may idle until the next request begins.
    private func awaitNextRequest(context: ChannelHandlerContext) {
        request = .awaitingHead(begun: false)
        arm(TimeAmount(limits.idleTimeout), context: context)
    }

    private func arm(_ delay: TimeAmount, context: ChannelHandlerContext) {
        deadline.set(.now() + delay) { at in scheduleCheck(at: at, context: context) }
    }

    private func disarm() {
        deadline.clear()
    }

    private func scheduleCheck(at time: NIODeadline, context: ChannelHandlerContext) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(deadline: time) {
            let expired = self.deadline.checkFired(now: .now()) { at in self.scheduleCheck(at: at, context: context) }
            if expired { self.timedOut(context: context) }
        }
    }

    private func timedOut(context: ChannelHandlerContext) {
        switch request {
        case .awaitingHead(begun: true):
            metrics.count(.headTimeout)
            refuse(refusals.timeout, context: context)
        case .awaitingHead(begun: false):
            metrics.count(.idleTimeout)
            context.close(promise: nil)
        case .receiving:
            metrics.count(.bodyTimeout)
            refuse(refusals.timeout, context: context)
        case .received, .refused:
            return
        }
    }

    /// Answers with `refusal` and closes; reads nothing more. A response already under way
    /// cannot be followed by another one, so then the connection just closes.
    private func refuse(_ refusal: ConnectionRefusals.Refusal, context: ChannelHandlerContext) {
        request = .refused
        disarm()
        guard !responding else {
            context.close(promise: nil)
            return
        }
        var headers = refusal.headers
        headers.add(name: "Content-Type", value: "application/problem+json")
        headers.add(name: "Content-Length", value: String(refusal.body.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: refusal.status, headers: headers))),
                      promise: nil)
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(refusal.body))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
