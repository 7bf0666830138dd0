import Foundation

/// The personal ranking of the feed; `docs/ranking.md` explains it.
///
///     score = 0.30·A + 0.25·D + 0.20·F + 0.15·T + 0.10·H
///
/// A shared activities, D nearness, F friends going, T how soon, H how full; each in 0...1.
struct Relevance: Sendable {
    /// Seconds since 1970.
    let now: Double
    /// Whether the feed was asked about a point; without one nearness is neutral.
    let hasCenter: Bool

    /// - Parameters:
    ///   - activities: how many activities the meeting has, `shared` of them the viewer's.
    ///   - distanceKm: from the point asked about; `nil` for online meetings.
    ///   - friendsGoing: how many of the viewer's friends are members.
    ///   - capacity: the maximum of participants, if any.
    func score(
        activities: Int, shared: Int, distanceKm: Double?, friendsGoing: Int,
        startsAt: Double, memberCount: Int, capacity: Int?
    ) -> Double {
        let sharedPart = activities == 0 ? 0 : Double(shared) / Double(activities)
        let near: Double
        if let distanceKm, hasCenter {
            near = 1 / (1 + distanceKm / 5)
        } else {
            near = 0.5
        }
        let friends = Double(min(friendsGoing, 3)) / 3
        let hours = max(0, startsAt - now) / 3600
        let soon = 1 / (1 + hours / 48)
        let full: Double
        if let capacity {
            full = memberCount >= capacity ? 0 : Double(memberCount) / Double(capacity)
        } else {
            full = Double(min(memberCount, 20)) / 40
        }
        return 0.30 * sharedPart + 0.25 * near + 0.20 * friends + 0.15 * soon + 0.10 * full
    }
}
