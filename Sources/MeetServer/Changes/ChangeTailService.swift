import Logging
import MeetCore
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The server's part in the change log (`docs/moderation.md`): runs the `ChangeTail` and
/// listens on the data directory's Unix socket, where every connection from another process
/// (the admin CLI after a commit) wakes the tail at once, and is answered with the server's
/// live figures (`meetupd admin stats`) before the close. Without the socket the tail still
/// polls.
struct ChangeTailService: Service {
    let tail: ChangeTail
    let dataDirectory: String
    let liveFigures: @Sendable () -> ServerLiveFigures
    let logger: Logger

    func run() async throws {
        let listener = await listen()
        let following = Task { await tail.run() }
        try? await gracefulShutdown()
        following.cancel()
        tail.nudge()
        try? await listener?.close()
        await following.value
    }

    /// Binds the nudge socket, replacing a stale file left by a crash; nil (logged) when it
    /// cannot.
    private func listen() async -> (any Channel)? {
        guard let path = ChangeNudge.socketPath(dataDirectory: dataDirectory) else {
            logger.warning("data directory path too long for the nudge socket; other processes' changes arrive by polling")
            return nil
        }
        let tail = tail
        let liveFigures = liveFigures
        do {
            return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .childChannelInitializer { channel in
                    tail.nudge()
                    return channel.pipeline.addHandler(AnswerAndClose(line: liveFigures().line))
                }
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
                .get()
        } catch {
            logger.warning("nudge socket not bound; other processes' changes arrive by polling", metadata: [
                "path": "\(path)", "error": "\(error)",
            ])
            return nil
        }
    }
}

/// Writes one line to a new connection, then closes it; a peer that hung up already (a
/// nudge) makes the write fail, which is fine.
private final class AnswerAndClose: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let line: String

    init(line: String) { self.line = line }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        channel.writeAndFlush(ByteBuffer(string: line)).whenComplete { _ in channel.close(promise: nil) }
    }
}
