import Logging
import MeetCore
import ServiceLifecycle

/// The feed's part in the server's life: loads the meetings index as the server starts
/// (meanwhile the first feed queries wait for it), and on a graceful stop — after the HTTP
/// server has stopped — saves the feed cursors so that clients carry on after a restart.
struct FeedLifecycle: Service {
    let meetings: MeetingService
    let logger: Logger

    func run() async throws {
        let clock = ContinuousClock()
        do {
            var loaded = (meetings: 0, bytes: 0)
            let took = try await clock.measure { loaded = try await meetings.loadFeedIndex() }
            logger.info("feed index loaded", metadata: [
                "meetings": "\(loaded.meetings)", "megabytes": "\(loaded.bytes / 1_000_000)", "took": "\(took)",
            ])
        } catch {
            // The first feed query tries again.
            logger.error("feed index not loaded", metadata: ["error": "\(error)"])
        }
        try? await gracefulShutdown()
        try await meetings.saveFeedCursors()
    }
}
