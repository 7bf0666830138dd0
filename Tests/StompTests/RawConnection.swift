import NIOCore
import NIOPosix
import Stomp

/// A bare TCP connection for tests that must see the server's bytes as sent (heart-beat EOLs),
/// send malformed input, or stop reading altogether (slow consumers).
final class RawConnection: Sendable {
    let channel: any Channel
    private let chunks: AsyncStream<ByteBuffer>

    private init(channel: any Channel, chunks: AsyncStream<ByteBuffer>) {
        self.channel = channel
        self.chunks = chunks
    }

    static func open(port: Int) async throws -> RawConnection {
        let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawConnection(channel: channel, chunks: chunks)
    }

    func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Reads until `done` holds for everything received so far, or the connection closes;
    /// returns it all. Throws `StompClient.TimedOut` after `patience`, so a test that waits for
    /// bytes that never come fails instead of hanging.
    func read(within patience: Duration = BrokerFixture.patience,
              until done: @escaping @Sendable (String) -> Bool) async throws -> String {
        let chunks = self.chunks
        return try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                var received = ""
                for await chunk in chunks {
                    received += String(buffer: chunk)
                    if done(received) { return received }
                }
                return received
            }
            group.addTask {
                try await Task.sleep(for: patience)
                throw StompClient.TimedOut(waited: patience)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    func readUntilClosed() async throws -> String {
        try await read { _ in false }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation

        init(continuation: AsyncStream<ByteBuffer>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
        }
    }
}
