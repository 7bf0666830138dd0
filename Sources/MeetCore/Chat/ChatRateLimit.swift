import Foundation
import Synchronization

/// How fast one user may post in one room: a burst, then a steady rate (a token bucket per
/// user and room, kept in memory: a restart forgiving a burst is harmless).
final class ChatRateLimit: Sendable {
    let burst: Double
    let perSecond: Double
    private let buckets = Mutex<[String: (tokens: Double, at: Date)]>([:])
    /// Above this many buckets, full ones are swept so memory stays bounded.
    private static let sweepThreshold = 100_000

    init(burst: Int = 10, perSecond: Double = 1) {
        self.burst = Double(burst)
        self.perSecond = perSecond
    }

    /// Takes one post's token, or returns how many seconds to wait for the next.
    func take(user: String, room: String, now: Date) -> TimeInterval? {
        buckets.withLock { buckets in
            if buckets.count > Self.sweepThreshold {
                buckets = buckets.filter { now.timeIntervalSince($0.value.at) * perSecond + $0.value.tokens < burst }
            }
            let key = user + "\u{0}" + room
            let (tokens, at) = buckets[key] ?? (burst, now)
            let available = min(burst, tokens + max(0, now.timeIntervalSince(at)) * perSecond)
            guard available >= 1 else { return (1 - available) / perSecond }
            buckets[key] = (available - 1, now)
            return nil
        }
    }
}
