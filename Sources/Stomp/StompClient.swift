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

    /// The connection.
    public let channel: any Channel
    /// The version the server chose.
    public let version: StompVersion
    /// The server's CONNECTED frame.
    public let connected: StompFrame
    private let frames: AsyncThrowingStream<StompFrame, any Error>

    private init(channel: any Channel, connected: StompFrame, frames: AsyncThrowingStream<StompFrame, any Error>) {
        self.channel = channel
        self.connected = connected
        self.version = connected.headers["version"].flatMap(StompVersion.init(rawValue:)) ?? .v1_0
        self.frames = frames
    }

    /// Connects, sends CONNECT with `headers` and waits for CONNECTED.
    public static func connect(host: String, port: Int, headers: StompHeaders = ["accept-version": "1.2", "host": "localhost"],
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> StompClient {
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
        var iterator = frames.makeAsyncIterator()
        guard let answer = try await iterator.next() else { throw ConnectError.closed }
        guard answer.command == .connected else {
            try? await channel.close()
            throw ConnectError.refused(answer)
        }
        return StompClient(channel: channel, connected: answer, frames: frames)
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
        var iterator = frames.makeAsyncIterator()
        return try await iterator.next()
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
