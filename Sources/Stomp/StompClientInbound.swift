import NIOCore
import Synchronization

/// What a ``StompClient``'s server sent: its frames, in order, and when it last sent anything
/// at all, heart-beats included.
final class StompClientInbound: Sendable {
    private let frames: AsyncThrowingStream<StompFrame, any Error>
    let continuation: AsyncThrowingStream<StompFrame, any Error>.Continuation
    private let lastHeard = Mutex(ContinuousClock.now)

    init() {
        (frames, continuation) = AsyncThrowingStream<StompFrame, any Error>.makeStream()
    }

    /// Notes that bytes arrived.
    func heard() {
        lastHeard.withLock { $0 = .now }
    }

    /// The next frame, or `nil` once the connection has closed. With `silence`, throws
    /// ``StompClient/TimedOut`` and closes `channel` once the server has said nothing for that
    /// long: a heart-beat resets the wait, a frame ends it.
    func next(on channel: any Channel, allowingSilence silence: Duration?) async throws -> StompFrame? {
        let frames = self.frames
        guard let silence else {
            var iterator = frames.makeAsyncIterator()
            return try await iterator.next()
        }
        do {
            return try await withThrowingTaskGroup(of: StompFrame?.self) { group in
                group.addTask {
                    var iterator = frames.makeAsyncIterator()
                    return try await iterator.next()
                }
                group.addTask {
                    while true {
                        let deadline = self.lastHeard.withLock { $0 } + silence
                        guard deadline > .now else { throw StompClient.TimedOut(waited: silence) }
                        try await Task.sleep(until: deadline)
                    }
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let timedOut as StompClient.TimedOut {
            // Cancelling the wait ended the stream: the connection is of no further use.
            try? await channel.close()
            throw timedOut
        }
    }
}

/// Decodes the server's frames into the client's inbound stream.
final class StompClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let inbound: StompClientInbound
    private var decoder = StompFrameDecoder(limits: StompLimits(maxBodySize: 64 * 1024 * 1024))
    private var buffer = ByteBuffer()

    init(inbound: StompClientInbound) {
        self.inbound = inbound
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbound.heard()
        buffer.writeImmutableBuffer(unwrapInboundIn(data))
        do {
            while let frame = try decoder.next(from: &buffer) {
                if frame.command == .connected, let version = frame.headers["version"].flatMap(StompVersion.init(rawValue:)) {
                    decoder.version = version
                }
                inbound.continuation.yield(frame)
            }
            buffer.discardReadBytes()
        } catch {
            inbound.continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbound.continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        inbound.continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
