import Logging
import ServiceLifecycle

/// Does a chore when the server starts (catching up on the time it was down), then every
/// `interval` until a graceful shutdown. A failed round is logged as `failure`; the next comes.
func repeatUntilShutdown(every interval: Duration, logger: Logger, failure: Logger.Message,
                         _ round: () async throws -> Void) async {
    repeat {
        do {
            try await round()
        } catch {
            logger.error(failure, metadata: ["error": "\(error)"])
        }
    } while (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }) != nil
}
