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
        // Each part with one division at most, and none for what is zero: a feed scores
        // thousands of candidates, and chains of divisions were most of a score's time.
        let sharedPart = shared == 0 ? 0 : Double(shared) / Double(activities)
        let near: Double
        if let distanceKm, hasCenter {
            near = 5 / (5 + distanceKm)  // 1 / (1 + d / 5 km)
        } else {
            near = 0.5
        }
        let friends = friendsGoing == 0 ? 0 : Double(min(friendsGoing, 3)) / 3
        return 0.30 * sharedPart + 0.25 * near + 0.20 * friends + 0.15 * soon(startsAt)
            + 0.10 * Self.fullness(memberCount: memberCount, capacity: capacity)
    }

    /// The best score of an online meeting starting at `startsAt` or later, at most `fullness`
    /// full, with none of the viewer's activities or friends: what `score` gives it at most,
    /// a hair above for rounding.
    func bestWithoutTies(onlineFrom startsAt: Double, fullness: Double) -> Double {
        0.25 * 0.5 + 0.15 * soon(startsAt) + 0.10 * fullness + 1e-9
    }

    /// The best score of a located meeting starting at `startsAt` or later, `nearestKm` or
    /// farther from the point asked about (a feed with a point), with none of the viewer's
    /// activities or friends: what `score` gives it at most (a meeting with places left is
    /// less than full), a hair above for rounding.
    func bestWithoutTies(locatedFrom startsAt: Double, nearestKm: Double) -> Double {
        0.25 * 5 / (5 + nearestKm) + 0.15 * soon(startsAt) + 0.10 + 1e-9
    }

    /// T: 1 now, ½ in two days (172,800 s), less the later it starts.
    private func soon(_ startsAt: Double) -> Double {
        172_800 / (172_800 + max(0, startsAt - now))
    }

    /// H: how full a meeting is, 0 when there is no room left; half at most without a capacity.
    static func fullness(memberCount: Int, capacity: Int?) -> Double {
        guard let capacity else { return Double(min(memberCount, 20)) / 40 }
        return memberCount >= capacity ? 0 : Double(memberCount) / Double(capacity)
    }
}
