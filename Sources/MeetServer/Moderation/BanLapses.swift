import Logging
import MeetCore
import ServiceLifecycle

/// Lifts temporary bans as they end, while the server runs: at start (catching up on the time
/// it was down), then every five seconds. Login lifts a user's own lapsed ban at once.
struct BanLapses: Service {
    let moderation: ModerationService
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .seconds(5), logger: logger, failure: "lifting lapsed bans failed") {
            let lifted = try await moderation.liftLapsedBans()
            if lifted > 0 { logger.info("temporary bans lapsed", metadata: ["count": "\(lifted)"]) }
        }
    }
}
