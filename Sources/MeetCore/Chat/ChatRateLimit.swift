import Foundation
import Synchronization

/// How fast one user may post in one room: a burst, then a steady rate (a token bucket per
/// user and room, kept in memory: a restart forgiving a burst is harmless).
final class ChatRateLimit: Sendable {
    let burst: Double
    let perSecond: Double
    private let buckets = Mutex<[Poster: (tokens: Double, at: Date)]>([:])
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
            // One look-up, the bucket changed in place.
            return Self.take(from: &buckets[Poster(user: user, room: room), default: (burst, now)], now: now,
                             burst: burst, perSecond: perSecond)
        }
    }

    /// Gives back the token a post took when it turned out to store nothing (a repeated
    /// `clientMessageId`): a client re-sending after a lost connection is not charged twice.
    func giveBack(user: String, room: String) {
        buckets.withLock { buckets in
            let key = Poster(user: user, room: room)
            if let tokens = buckets[key]?.tokens { buckets[key]?.tokens = min(burst, tokens + 1) }
        }
    }

    private static func take(from bucket: inout (tokens: Double, at: Date), now: Date, burst: Double,
                             perSecond: Double) -> TimeInterval? {
        let available = min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * perSecond)
        guard available >= 1 else { return (1 - available) / perSecond }
        bucket = (available - 1, now)
        return nil
    }

    /// A bucket's owner: a user in a room.
    private struct Poster: Hashable {
        var user: String
        var room: String
    }
}
