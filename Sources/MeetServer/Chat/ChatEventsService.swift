import Logging
import MeetCore
import ServiceLifecycle

/// The chat's part in the server's life: follows the domain-event log for as long as the server
/// runs, so that joins, departures and meeting changes show in the rooms as system messages,
/// and whoever leaves a room stops hearing it (``ChatRevocation``).
struct ChatEventsService: Service {
    let chat: ChatService
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await chat.followEvents() }
        } catch is CancellationError {
            // A graceful stop; what is left in the log is read at the next start.
        } catch {
            logger.error("chat stopped following events", metadata: ["error": "\(error)"])
        }
    }
}
