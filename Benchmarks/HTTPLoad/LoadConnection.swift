import NIOCore
import NIOHTTP1

/// One keep-alive connection of a run: sends the request the run hands it, reads the
/// response to its last byte, then reports back and waits for the next one. HTTP/1.1
/// without pipelining, so at most one request is in flight here.
final class LoadConnection: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let run: LoadRun
    private var context: ChannelHandlerContext?
    /// The number of the request awaiting its response, if any.
    private(set) var inFlight: Int?
    private var status = 0
    private var bodyBytes = 0

    init(run: LoadRun) {
        self.run = run
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        run.connectionReady(self)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let lost = inFlight
        inFlight = nil
        run.connectionLost(self, inFlight: lost)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(let body):
            bodyBytes += body.readableBytes
        case .end:
            guard let number = inFlight else { return }
            inFlight = nil
            run.answered(number, status: status, bodyBytes: bodyBytes, by: self)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The run counts the request as an error when the channel goes inactive.
        context.close(promise: nil)
    }

    /// Sends request `number`; the head was built once, when the request file was read.
    func send(_ number: Int, head: HTTPRequestHead) {
        guard let context else { return }
        inFlight = number
        status = 0
        bodyBytes = 0
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func close() {
        context?.close(promise: nil)
    }
}
