import Logging
import MeetCore
import ServiceLifecycle

/// Removes unused uploads past their grace period, and the files of deleted ones: when the
/// server starts (catching up on the time it was down), then every ten minutes until it stops.
/// Uploads also sweep on the way, at most as often.
struct MediaSweeper: Service {
    let media: MediaService
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .seconds(600), logger: logger, failure: "media sweep failed") {
            try await media.sweep()
        }
    }
}
