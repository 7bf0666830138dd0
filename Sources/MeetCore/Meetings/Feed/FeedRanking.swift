import Foundation

/// A meeting's place in a ranked feed: ordered by `key`, then by date, then by number.
struct RankedMeeting: Comparable, Sendable {
    var key: Double
    var startsAt: Double
    var number: Int64
    /// From the point asked about; NaN without one and for online meetings.
    var distanceKm: Double

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.key, lhs.startsAt, lhs.number) < (rhs.key, rhs.startsAt, rhs.number)
    }
}

extension FeedIndexState {
    /// The `depth` first meetings for `request` as `viewer` sees them, in feed order.
    ///
    /// Nearby: the grid cells around the circle, cut to the circle, plus every online
    /// meeting. Without a point: every meeting from `from` on, in time order (the date order
    /// stops after `depth`). Every candidate is ranked; only the first `depth` are sorted.
    func rank(_ request: FeedRequest, from: Double, viewer: FeedViewer, now: Double, depth: Int) -> [RankedMeeting] {
        let filter = FeedFilter(request, from: from, viewer: viewer, in: self)
        let key = rankingKey(request, viewer: viewer, now: now)
        var ranked: [RankedMeeting] = []
        func consider(_ slot: Int32, distanceKm: Double) {
            let entry = entries[Int(slot)]
            guard filter.admits(entry, activities: activityLists[Int(slot)]) else { return }
            ranked.append(RankedMeeting(key: key(slot, entry, distanceKm), startsAt: entry.startsAt, number: entry.number, distanceKm: distanceKm))
        }
        if let circle = request.circle {
            let center = CircleDistance(circle)
            forEachSlot(near: circle) { slot in
                let entry = entries[Int(slot)]
                let distance = center.distanceKm(lat: entry.lat, lon: entry.lon)
                if distance <= circle.radiusKm { consider(slot, distanceKm: distance) }
            }
            for slot in online { consider(slot, distanceKm: .nan) }
        } else {
            for slot in byTime[timePosition(from: from)...] {
                if let to = filter.to, entries[Int(slot)].startsAt >= to { break }
                consider(slot, distanceKm: .nan)
                if request.sort == .date && ranked.count == depth { break }
            }
        }
        ranked.keepSmallest(depth)
        return ranked
    }

    /// The slots of located meetings in the grid cells that cover `circle`.
    private func forEachSlot(near circle: GeoCircle, _ body: (Int32) -> Void) {
        let cellDegrees = Self.cellDegrees
        func index(_ degrees: Double) -> Int64 { Int64((degrees / cellDegrees).rounded(.down)) }
        let boxes = circle.boundingBoxes
        let probes = boxes.reduce(0) { sum, box in
            sum + Int(index(box.maxLat) - index(box.minLat) + 1) * Int(index(box.maxLon) - index(box.minLon) + 1)
        }
        // A huge circle (near a pole) covers more cells than exist: read every one; the
        // distance test decides anyway.
        guard probes <= cells.count else {
            for list in cells.values { list.forEach(body) }
            return
        }
        for box in boxes {
            for latIndex in index(box.minLat)...index(box.maxLat) {
                for lonIndex in index(box.minLon)...index(box.maxLon) {
                    cells[Self.cell(latIndex: latIndex, lonIndex: lonIndex)]?.forEach(body)
                }
            }
        }
    }

    /// What each order sorts by, ascending.
    private func rankingKey(_ request: FeedRequest, viewer: FeedViewer, now: Double) -> (Int32, FeedEntry, Double) -> Double {
        switch request.sort {
        case .date:
            return { _, entry, _ in entry.startsAt }
        case .distance:
            return { _, _, distance in distance.isNaN ? .infinity : distance }
        case .popularity:
            return { _, entry, _ in -Double(entry.memberCount) }
        case .relevance:
            let liked = ActivitySet(viewer.activityIds, interned: activities)
            let friendsGoing = friendsGoing(viewer.friendIds)
            let relevance = Relevance(now: now, hasCenter: request.circle != nil)
            return { slot, entry, distance in
                let activities = activityLists[Int(slot)]
                return -relevance.score(
                    activities: activities.count, shared: activities.count(where: liked.contains),
                    distanceKm: distance.isNaN ? nil : distance, friendsGoing: Int(friendsGoing[Int(slot)]),
                    startsAt: entry.startsAt, memberCount: Int(entry.memberCount),
                    capacity: entry.capacity == 0 ? nil : Int(entry.capacity))
            }
        }
    }

    /// Per slot, how many of `friendIds` are members (counted up to 255).
    private func friendsGoing(_ friendIds: [String]) -> [UInt8] {
        var counts = [UInt8](repeating: 0, count: entries.count)
        for friend in friendIds {
            guard let user = users[friend] else { continue }
            for slot in meetingsOf[Int(user)] where counts[Int(slot)] < .max { counts[Int(slot)] += 1 }
        }
        return counts
    }
}

/// The filters of a request, with ids interned the index's way.
private struct FeedFilter {
    let from: Double
    let to: Double?
    let freeOnly: Bool
    let hasSpots: Bool
    /// `nil`: any activity.
    let activities: ActivitySet?
    let blockedOrganizers: Set<UInt32>

    init(_ request: FeedRequest, from: Double, viewer: FeedViewer, in state: FeedIndexState) {
        self.from = from
        to = request.to?.timeIntervalSince1970
        freeOnly = request.freeOnly
        hasSpots = request.hasSpots
        activities = request.activityIds.isEmpty ? nil : ActivitySet(request.activityIds, interned: state.activities)
        blockedOrganizers = Set(viewer.blockedUserIds.compactMap { state.users[$0] })
    }

    func admits(_ entry: FeedEntry, activities meetingActivities: [UInt32]) -> Bool {
        entry.startsAt >= from
            && (to.map { entry.startsAt < $0 } ?? true)
            && (!freeOnly || entry.isFree)
            && (!hasSpots || entry.hasSpots)
            && (activities.map { wanted in meetingActivities.contains { wanted.contains($0) } } ?? true)
            && (blockedOrganizers.isEmpty || !blockedOrganizers.contains(entry.organizer))
    }
}

/// A set of interned activities as bits; ids the index has never seen match nothing.
struct ActivitySet {
    private var words: [UInt64] = []

    init(_ ids: [String], interned: [String: UInt32]) {
        for id in ids {
            guard let number = interned[id] else { continue }
            let word = Int(number / 64)
            if word >= words.count { words += repeatElement(0, count: word - words.count + 1) }
            words[word] |= 1 << (number % 64)
        }
    }

    func contains(_ number: UInt32) -> Bool {
        let word = Int(number / 64)
        return word < words.count && words[word] & (1 << (number % 64)) != 0
    }
}

/// Great-circle distances from one centre, with the centre's trigonometry done once; the
/// same haversine as `Coordinate.distanceKm`.
private struct CircleDistance {
    let lat: Double
    let lon: Double
    let cosLat: Double

    init(_ circle: GeoCircle) {
        lat = circle.lat
        lon = circle.lon
        cosLat = cos(circle.lat * .pi / 180)
    }

    func distanceKm(lat otherLat: Double, lon otherLon: Double) -> Double {
        let Δφ = (otherLat - lat) * .pi / 180, Δλ = (otherLon - lon) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cosLat * cos(otherLat * .pi / 180) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Coordinate.earthRadiusKm * asin(min(1, h.squareRoot()))
    }
}

extension Array where Element: Comparable {
    /// Keeps the `k` smallest elements, sorted: a quickselect cuts to them first, so that
    /// only `k` are sorted however many there were.
    mutating func keepSmallest(_ k: Int) {
        if count > k {
            var (low, high) = (0, count - 1)
            // Invariant: the k smallest are in 0..<k once low..high shrinks around k.
            while low < high {
                let pivot = self[(low + high) / 2]
                var (i, j) = (low, high)
                while i <= j {
                    while self[i] < pivot { i += 1 }
                    while pivot < self[j] { j -= 1 }
                    if i <= j {
                        swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if k - 1 <= j { high = j } else if k - 1 >= i { low = i } else { break }
            }
            removeLast(count - k)
        }
        sort()
    }
}
