import Logging
import MeetCore
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The server's part in the change log (`docs/moderation.md`): runs the `ChangeTail` and
/// listens on the data directory's Unix socket, where every connection from another process
/// (the admin CLI after a commit) wakes the tail at once. Without the socket the tail still
/// polls.
struct ChangeTailService: Service {
    let tail: ChangeTail
    let dataDirectory: String
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
        do {
            return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .childChannelInitializer { channel in
                    tail.nudge()
                    return channel.close()
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
