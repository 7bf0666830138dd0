import Foundation

/// The personal ranking of the feed; `docs/ranking.md` explains it.
///
///     score = 0.30·A + 0.25·D + 0.20·F + 0.15·T + 0.10·H
///
/// A shared activities, D nearness, F friends going, T how soon, H how full; each in 0...1.
struct Relevance: Sendable {
    /// What the ranking knows about the viewer and the candidates.
    struct Signals: Sendable {
        /// Per meeting id: (activities it has, of which the viewer's).
        var activities: [String: (total: Int, shared: Int)] = [:]
        /// Per meeting id: how many of the viewer's friends are members.
        var friendsGoing: [String: Int] = [:]
    }

    let now: Date
    let signals: Signals
    /// Whether the feed was asked about a point; without one nearness is neutral.
    let hasCenter: Bool

    func score(_ candidate: FeedCandidate) -> Double {
        let activities = signals.activities[candidate.id] ?? (0, 0)
        let shared = activities.total == 0 ? 0 : Double(activities.shared) / Double(activities.total)
        let near: Double
        if let distance = candidate.distanceKm, hasCenter {
            near = 1 / (1 + distance / 5)
        } else {
            near = 0.5
        }
        let friends = Double(min(signals.friendsGoing[candidate.id] ?? 0, 3)) / 3
        let hours = max(0, candidate.startsAt - now.timeIntervalSince1970) / 3600
        let soon = 1 / (1 + hours / 48)
        let full: Double
        if let capacity = candidate.maxParticipants {
            full = candidate.isFull ? 0 : Double(candidate.memberCount) / Double(capacity)
        } else {
            full = Double(min(candidate.memberCount, 20)) / 40
        }
        return 0.30 * shared + 0.25 * near + 0.20 * friends + 0.15 * soon + 0.10 * full
    }
}
