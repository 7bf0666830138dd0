import NIOCore
import NIOPosix

/// A minimal STOMP client over TCP, for our tests, the load generator and relays.
public final class StompClient: Sendable {
    /// Why a connection attempt failed.
    public enum ConnectError: Error, Sendable {
        /// The server answered CONNECT with this ERROR frame.
        case refused(StompFrame)
        /// The server closed the connection without answering.
        case closed
    }

    /// Thrown when the server sent nothing within the client's `timeout`; the connection is
    /// closed then, since a frame may still be on its way.
    public struct TimedOut: Error, Sendable {
        /// How long the client waited.
        public let waited: Duration

        /// A wait of `waited` that ended with nothing received.
        public init(waited: Duration) {
            self.waited = waited
        }
    }

    /// The connection.
    public let channel: any Channel
    /// The version the server chose.
    public let version: StompVersion
    /// The server's CONNECTED frame.
    public let connected: StompFrame
    /// How long ``next()`` waits for a frame before it throws ``TimedOut``; `nil` waits as long
    /// as the connection lives.
    public let timeout: Duration?
    private let frames: AsyncThrowingStream<StompFrame, any Error>

    private init(channel: any Channel, connected: StompFrame, timeout: Duration?, frames: AsyncThrowingStream<StompFrame, any Error>) {
        self.channel = channel
        self.connected = connected
        self.version = connected.headers["version"].flatMap(StompVersion.init(rawValue:)) ?? .v1_0
        self.timeout = timeout
        self.frames = frames
    }

    /// Connects, sends CONNECT with `headers` and waits for CONNECTED. With a `timeout`, the
    /// wait for CONNECTED and every ``next()`` end in ``TimedOut`` instead of waiting forever
    /// on a server that stays silent: tests want that; a relay that idles for hours does not.
    public static func connect(host: String, port: Int, headers: StompHeaders = ["accept-version": "1.2", "host": "localhost"],
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               timeout: Duration? = nil) async throws -> StompClient {
        let (frames, continuation) = AsyncThrowingStream<StompFrame, any Error>.makeStream()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StompClientHandler(continuation: continuation))
                }
            }
            .connect(host: host, port: port)
            .get()
        try await channel.writeAndFlush(StompFrameEncoder.encode(StompFrame(.connect, headers: headers), version: .v1_0))
        guard let answer = try await next(in: frames, on: channel, within: timeout) else { throw ConnectError.closed }
        guard answer.command == .connected else {
            try? await channel.close()
            throw ConnectError.refused(answer)
        }
        return StompClient(channel: channel, connected: answer, timeout: timeout, frames: frames)
    }

    /// Sends a frame.
    public func send(_ frame: StompFrame) async throws {
        try await channel.writeAndFlush(StompFrameEncoder.encode(frame, version: version, allocator: channel.allocator))
    }

    /// Sends raw bytes, e.g. heart-beat EOLs or deliberately broken frames.
    public func send(bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// The next frame from the server, or `nil` once the connection has closed.
    public func next() async throws -> StompFrame? {
        try await Self.next(in: frames, on: channel, within: timeout)
    }

    private static func next(in frames: AsyncThrowingStream<StompFrame, any Error>, on channel: any Channel,
                             within timeout: Duration?) async throws -> StompFrame? {
        guard let timeout else {
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
                    try await Task.sleep(for: timeout)
                    throw TimedOut(waited: timeout)
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let timedOut as TimedOut {
            // Cancelling the wait ended the stream: the connection is of no further use.
            try? await channel.close()
            throw timedOut
        }
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }
}

/// Decodes the server's frames into the client's stream.
private final class StompClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncThrowingStream<StompFrame, any Error>.Continuation
    private var decoder = StompFrameDecoder(limits: StompLimits(maxBodySize: 64 * 1024 * 1024))
    private var inbound = ByteBuffer()

    init(continuation: AsyncThrowingStream<StompFrame, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbound.writeImmutableBuffer(unwrapInboundIn(data))
        do {
            while let frame = try decoder.next(from: &inbound) {
                if frame.command == .connected, let version = frame.headers["version"].flatMap(StompVersion.init(rawValue:)) {
                    decoder.version = version
                }
                continuation.yield(frame)
            }
            inbound.discardReadBytes()
        } catch {
            continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
