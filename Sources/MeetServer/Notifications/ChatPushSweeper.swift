import Logging
import MeetCore
import ServiceLifecycle

/// Forgets finished chat pushes past their retention (``ChatPushRetention``): when the server
/// starts (catching up on the time it was down), then every hour until it stops.
struct ChatPushSweeper: Service {
    let retention: ChatPushRetention
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .seconds(3600), logger: logger, failure: "chat push sweep failed") {
            let deleted = try await retention.sweep()
            if deleted > 0 { logger.info("old chat pushes forgotten", metadata: ["notifications": "\(deleted)"]) }
        }
    }
}
