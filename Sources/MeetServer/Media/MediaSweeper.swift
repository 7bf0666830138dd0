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
        repeat {
            do {
                try await media.sweep()
            } catch {
                logger.error("media sweep failed", metadata: ["error": "\(error)"])
            }
        } while (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(600)) }) != nil
    }
}
