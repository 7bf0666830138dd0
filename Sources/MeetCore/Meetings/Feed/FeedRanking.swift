import Foundation

/// A meeting's place in a ranked feed: ordered by `key`, then by date, then by number.
struct RankedMeeting: Comparable, Sendable {
    var key: Double
    var startsAt: Double
    var number: Int64

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.key, lhs.startsAt, lhs.number) < (rhs.key, rhs.startsAt, rhs.number)
    }
}

extension FeedIndexState {
    /// The `depth` first meetings for `request` as `viewer` sees them: the first `sorted`
    /// in feed order, the rest after them unordered (`FeedList` orders them when a later
    /// page asks).
    ///
    /// Nearby: the grid cells around the circle, cut to the circle, plus the online
    /// meetings. Without a point: every meeting from `from` on, in time order. Candidates
    /// are offered to a `SmallestMeetings`, which turns away those that cannot make the
    /// depth, and only the first `sorted` are sorted. An online band, or a cell (read nearest
    /// first), stops once its later meetings cannot rank unless tied to the viewer
    /// (`FeedRankingKey.lowest`: in relevance, and in distance once the depth is of nearer
    /// meetings); the meetings tied to the viewer near the point are offered before any band
    /// or cell, which skip them; the date order near a point takes candidates by windows of
    /// time and stops once `depth` are in (`rankByDate`).
    func rank(_ request: FeedRequest, from: Double, viewer: FeedViewer, now: Double, depth: Int, sorted: Int) -> [RankedMeeting] {
        if request.sort == .date, let circle = request.circle {
            return rankByDate(near: circle, filter: FeedFilter(request, from: from, viewer: viewer, in: self), depth: depth, sorted: sorted)
        }
        let cells = request.circle.map { cellsByDistance(near: $0) }
        switch request.sort {
        case .date: return rank(request, from: from, viewer: viewer, depth: depth, sorted: sorted, cells: cells, by: DateKey())
        case .distance: return rank(request, from: from, viewer: viewer, depth: depth, sorted: sorted, cells: cells, by: DistanceKey())
        case .popularity: return rank(request, from: from, viewer: viewer, depth: depth, sorted: sorted, cells: cells, by: PopularityKey())
        case .relevance:
            return rank(request, from: from, viewer: viewer, depth: depth, sorted: sorted, cells: cells, by: RelevanceKey(
                relevance: Relevance(now: now, hasCenter: request.circle != nil),
                ties: ties(activities: Set(viewer.activityIds).compactMap { activities[$0] },
                           friends: viewer.friendIds.compactMap { users[$0] }, near: cells)))
        }
    }

    /// `rank` for one order: generic, so that each order's key is inlined into the scan of
    /// the candidates (through a closure it was a call per candidate, a sixth of a query).
    /// `cells`: those around the request's point (`cellsByDistance`), `nil` without one.
    private func rank<Key: FeedRankingKey>(
        _ request: FeedRequest, from: Double, viewer: FeedViewer, depth: Int, sorted: Int,
        cells: [(cell: Int32, nearestKm: Double)]?, by key: Key
    ) -> [RankedMeeting] {
        var candidates = Candidates(filter: FeedFilter(request, from: from, viewer: viewer, in: self), key: key, depth: depth)
        if let circle = request.circle, let cells {
            let center = CircleDistance(circle)
            // Those likely to rank high first, so that the depth-th so far rises early and
            // turns more away: the viewer's ties (shared activities, friends going) above all.
            offerTied(key.tiedSlots, near: center, to: &candidates)
            if key.ranksOnlineHigh { offerOnline(to: &candidates, depth: depth) }
            offerCells(cells, center: center, to: &candidates)
            if !key.ranksOnlineHigh { offerOnline(to: &candidates, depth: depth) }
        } else {
            for slot in byTime[timePosition(from: from)...] {
                let entry = entries[Int(slot)]
                if let to = candidates.filter.to, entry.startsAt >= to { break }
                candidates.consider(slot, entry, distanceKm: .nan)
                if request.sort == .date && candidates.kept.isFull { break }
            }
        }
        return candidates.kept.smallest(sortingFirst: sorted)
    }

    /// Offers the online meetings not tied to the viewer (those tied are offered first), the
    /// soonest of every band first, the fullest first: in relevance they rank highest, so the
    /// bound turns away most of the rest. A band stops once its later meetings cannot rank.
    private func offerOnline<Key>(to candidates: inout Candidates<Key>, depth: Int) {
        var positions = [Int](repeating: 0, count: online.count)
        for limit in [depth / online.count + 1, .max] {
            for band in online.indices.reversed() {
                let fullness = Double(band + 1) / Double(Self.fullnessBands)
                var position = positions[band]
                // Indexed in place, never copied out (as the cells' lists).
                while position < online[band].endIndex, position - positions[band] < limit {
                    let slot = online[band][position]
                    if !candidates.key.isTied(slot) {
                        let entry = entries[Int(slot)]
                        if let worst = candidates.kept.worst,
                           candidates.key.lowest(onlineFrom: entry.startsAt, fullness: fullness) > worst.key { break }
                        candidates.consider(slot, entry, distanceKm: .nan)
                    }
                    position += 1
                }
                positions[band] = position
            }
        }
    }

    /// Offers the located meetings not tied to the viewer (those tied are offered first) of
    /// `cells`, nearest first: in distance and relevance they rank highest. A cell's list is
    /// read in time order until no later meeting of it can rank (no nearer than the cell, no
    /// sooner than the one at hand).
    private func offerCells<Key>(
        _ cells: [(cell: Int32, nearestKm: Double)], center: CircleDistance, to candidates: inout Candidates<Key>
    ) {
        cellLists.withUnsafeBufferPointer { lists in
            // Each list read in place, never copied out (`cellLists`).
            for (cell, nearestKm) in cells {
                for position in 0..<lists[Int(cell)].count {
                    let slot = lists[Int(cell)][position]
                    if candidates.key.isTied(slot) { continue }
                    let entry = entries[Int(slot)]
                    if let worst = candidates.kept.worst,
                       candidates.key.lowest(locatedFrom: entry.startsAt, nearestKm: nearestKm) > worst.key { break }
                    candidates.offer(slot, entry, near: center)
                }
            }
        }
    }

    /// Offers the meetings in `slots`: their entries are copied out first, in a loop of
    /// independent reads, so that their cache misses overlap. One by one, waiting on each,
    /// they were a third of the scan (perf, issue 21).
    private func offerTied<Key>(_ slots: [Int32], near center: CircleDistance, to candidates: inout Candidates<Key>) {
        for (slot, entry) in zip(slots, slots.map { entries[Int($0)] }) { candidates.offer(slot, entry, near: center) }
    }

    /// The slots of located meetings in the grid cells that cover `circle`, cell by cell.
    func cellLists(near circle: GeoCircle) -> [[Int32]] {
        var lists: [[Int32]] = []
        guard forEachCell(near: circle, { _, _, cell in lists.append(cellLists[Int(cell)]) }) else { return cellLists }
        return lists
    }

    /// The cells (places in `cellLists`) that cover `circle`, with how near each comes to the
    /// centre, nearest first.
    func cellsByDistance(near circle: GeoCircle) -> [(cell: Int32, nearestKm: Double)] {
        let bound = FeedCellDistance(circle)
        var cells: [(cell: Int32, nearestKm: Double)] = []
        guard forEachCell(near: circle, { latIndex, lonIndex, cell in
            cells.append((cell, bound.nearestKm(latIndex: latIndex, lonIndex: lonIndex)))
        }) else { return cellLists.indices.map { (Int32($0), 0) } }
        cells.sort { $0.nearestKm < $1.nearestKm }
        return cells
    }

    /// Calls `body` with each grid cell that covers `circle` and has meetings (its place in
    /// `cellLists`); `false` (and no call) for a huge circle (near a pole), which covers more
    /// cells than the grid has held (empty ones keep their place): its caller reads every
    /// one, and the distance test decides anyway.
    private func forEachCell(near circle: GeoCircle, _ body: (Int64, Int64, Int32) -> Void) -> Bool {
        let cellDegrees = Self.cellDegrees
        func index(_ degrees: Double) -> Int64 { Int64((degrees / cellDegrees).rounded(.down)) }
        let boxes = circle.boundingBoxes
        let probes = boxes.reduce(0) { sum, box in
            sum + Int(index(box.maxLat) - index(box.minLat) + 1) * Int(index(box.maxLon) - index(box.minLon) + 1)
        }
        guard probes <= cells.count else { return false }
        for box in boxes {
            for latIndex in index(box.minLat)...index(box.maxLat) {
                for lonIndex in index(box.minLon)...index(box.maxLon) {
                    if let cell = cells[Self.cell(latIndex: latIndex, lonIndex: lonIndex)], !cellLists[Int(cell)].isEmpty {
                        body(latIndex, lonIndex, cell)
                    }
                }
            }
        }
        return true
    }

    /// Per slot, in how many of the lists at `chosen` in `lists` it is (up to 255): how many
    /// of the asked activities the meeting has. Counting from the few lists keeps the scan of
    /// candidates to flat arrays. Unlike `count` (the ties) it keeps no list of the slots it
    /// counts: for a popular activity that list was filled and dropped on every request.
    func tally(_ chosen: [UInt32], of lists: [[ListedSlot]]) -> [UInt8] {
        var counts = [UInt8](repeating: 0, count: entries.count)
        lists.withUnsafeBufferPointer { lists in
            counts.withUnsafeMutableBufferPointer { counts in
                for list in chosen {
                    for position in 0..<lists[Int(list)].count {
                        let slot = Int(lists[Int(list)][position].slot)
                        counts[slot] &+= counts[slot] < .max ? 1 : 0
                    }
                }
            }
        }
        return counts
    }

    /// The viewer's ties to the meetings (`ViewerTies`): per slot, how many of the viewer's
    /// `activities` the meeting has and how many of their `friends` go, and the slots with
    /// either, each once, of those a feed around a point with `cells` shows (online, or in one
    /// of `cells`; none without a point).
    func ties(activities: [UInt32], friends: [UInt32], near cells: [(cell: Int32, nearestKm: Double)]?) -> ViewerTies {
        var counts = [UInt8](repeating: 0, count: entries.count)
        var slots: [Int32] = []
        let near = nearListings(cells)
        count(activities, of: meetingsWith, into: &counts, field: ViewerTies.sharedField, step: 1, near: near, found: &slots)
        count(friends, of: meetingsOf, into: &counts, field: ViewerTies.friendsField, step: 0x40, near: near, found: &slots)
        return ViewerTies(counts: counts, slots: slots)
    }

    /// By listing shifted by two, 1 for those a feed around a point with `cells` shows:
    /// nowhere (-2) never, online (-1) near any point; all 0 without a point.
    private func nearListings(_ cells: [(cell: Int32, nearestKm: Double)]?) -> [UInt8] {
        var isNear = [UInt8](repeating: 0, count: cellLists.count + 2)
        if let cells {
            isNear[Int(ListedSlot.online) + 2] = 1
            for (cell, _) in cells { isNear[Int(cell) + 2] = 1 }
        }
        return isNear
    }

    /// Adds `step` to the bits `field` of each slot's count for each of its occurrences in the
    /// lists at `chosen` in `lists`, up to what `field` holds, and appends to `found` each slot
    /// whose count was 0 before, if a feed around a point shows it (`isNear`, by listing,
    /// `nearListings`). The slots are picked by the listing their lists carry: a world's ties,
    /// a few of them near, and no entry read. Each list is read in place, by index, as the
    /// cells' lists are: handed to a method of its own (`withUnsafeBufferPointer`), a list was
    /// retained and released, on a count the cores share (disassembly, issue 21). Without
    /// branches on the counts, which no predictor guesses: a slot is written to `found`
    /// always, and kept by moving on.
    private func count(
        _ chosen: [UInt32], of lists: [[ListedSlot]], into counts: inout [UInt8], field: UInt8, step: UInt8,
        near isNear: [UInt8], found: inout [Int32]
    ) {
        let start = found.count
        found.append(contentsOf: repeatElement(0, count: chosen.reduce(0) { $0 + lists[Int($1)].count }))
        var end = start
        lists.withUnsafeBufferPointer { lists in
            found.withUnsafeMutableBufferPointer { found in
                counts.withUnsafeMutableBufferPointer { counts in
                    for list in chosen {
                        for position in 0..<lists[Int(list)].count {
                            let listed = lists[Int(list)][position]
                            let slot = Int(listed.slot)
                            let count = counts[slot]
                            found[end] = listed.slot
                            end += count == 0 ? Int(isNear[Int(listed.listing) + 2]) : 0
                            counts[slot] = count &+ (count & field < field ? step : 0)
                        }
                    }
                }
            }
        }
        found.removeLast(found.count - end)
    }
}

/// What ties a viewer to the meetings (`FeedIndexState.ties`), one byte per slot: a
/// relevance ranking reads it for every candidate, and zeroes it for every request, so one
/// array of 100 KB rather than two (issue 21).
struct ViewerTies {
    /// The bits of a count that hold how many of the viewer's activities the meeting has:
    /// up to 63, where a meeting has at most `MeetingForm.maxActivities`.
    static let sharedField: UInt8 = 0x3F
    /// The bits that hold how many of the viewer's friends go, by steps of 0x40: up to 3,
    /// beyond which `Relevance.score` counts no more.
    static let friendsField: UInt8 = 0xC0

    /// Per slot, both counts.
    let counts: [UInt8]
    /// The slots where either is above zero, each once, of those near the point asked about.
    let slots: [Int32]

    /// How many of the viewer's activities the meeting in `slot` has.
    func shared(_ slot: Int32) -> Int { Int(counts[Int(slot)] & Self.sharedField) }
    /// How many of the viewer's friends go to the meeting in `slot`, up to 3.
    func friendsGoing(_ slot: Int32) -> Int { Int(counts[Int(slot)] >> 6) }
    /// Whether either count is above zero.
    func isTied(_ slot: Int32) -> Bool { counts[Int(slot)] != 0 }
}

/// What an order sorts candidates by, ascending.
private protocol FeedRankingKey {
    /// The key of the meeting in `slot`; `distanceKm` is NaN for a meeting without one.
    func key(_ slot: Int32, _ entry: FeedEntry, _ distanceKm: Double) -> Double

    /// A key no online meeting starting at `startsAt` or later, at most `fullness` full
    /// (`Relevance.fullness`), is below unless `isTied` says so of it; -∞ when the order
    /// knows none.
    func lowest(onlineFrom startsAt: Double, fullness: Double) -> Double

    /// A key no located meeting starting at `startsAt` or later, `nearestKm` or farther from
    /// the centre, is below unless `isTied` says so of it; -∞ when the order knows none.
    func lowest(locatedFrom startsAt: Double, nearestKm: Double) -> Double

    /// Whether the meeting in `slot` may rank above what `lowest` says.
    func isTied(_ slot: Int32) -> Bool

    /// Every slot `isTied` says so of near the point asked about, each once.
    var tiedSlots: [Int32] { get }

    /// Whether online meetings tend to rank above located ones.
    var ranksOnlineHigh: Bool { get }
}

extension FeedRankingKey {
    func lowest(onlineFrom startsAt: Double, fullness: Double) -> Double { -.infinity }
    func lowest(locatedFrom startsAt: Double, nearestKm: Double) -> Double { -.infinity }
    func isTied(_ slot: Int32) -> Bool { false }
    var tiedSlots: [Int32] { [] }
    var ranksOnlineHigh: Bool { false }
}

/// The candidates of one ranking: those the filter admits, keyed by the order, the `depth`
/// smallest kept. The scan's steps take it `inout`: captured by nested functions, the same
/// variables were checked for exclusive access at run time on each use, some 1,600 calls per
/// relevance query (callgrind, issue 21).
private struct Candidates<Key: FeedRankingKey> {
    let filter: FeedFilter
    let key: Key
    var kept: SmallestMeetings

    init(filter: FeedFilter, key: Key, depth: Int) {
        self.filter = filter
        self.key = key
        kept = SmallestMeetings(depth)
    }

    /// Offers the meeting in `slot` if the filter admits it; `distanceKm` is NaN for one
    /// without a distance. Inlined into every scan: the compiler otherwise chooses per build
    /// which scans get it, and a call per candidate cost a relevance query 34,000
    /// instructions (callgrind, issue 21).
    @inline(__always)
    mutating func consider(_ slot: Int32, _ entry: FeedEntry, distanceKm: Double) {
        guard filter.admits(entry, slot: slot) else { return }
        kept.offer(RankedMeeting(key: key.key(slot, entry, distanceKm), startsAt: entry.startsAt, number: entry.number))
    }

    /// Offers the meeting in `slot` if it is online or inside the circle around `center`.
    @inline(__always)
    mutating func offer(_ slot: Int32, _ entry: FeedEntry, near center: CircleDistance) {
        if entry.placement == .online {
            consider(slot, entry, distanceKm: .nan)
        } else if let distance = center.distanceKm(to: entry) {
            consider(slot, entry, distanceKm: distance)
        }
    }
}

private struct DateKey: FeedRankingKey {
    func key(_ slot: Int32, _ entry: FeedEntry, _ distanceKm: Double) -> Double { entry.startsAt }
}

private struct DistanceKey: FeedRankingKey {
    func key(_ slot: Int32, _ entry: FeedEntry, _ distanceKm: Double) -> Double {
        distanceKm.isNaN ? .infinity : distanceKm
    }

    func lowest(onlineFrom startsAt: Double, fullness: Double) -> Double { .infinity }
    func lowest(locatedFrom startsAt: Double, nearestKm: Double) -> Double { nearestKm }
}

private struct PopularityKey: FeedRankingKey {
    func key(_ slot: Int32, _ entry: FeedEntry, _ distanceKm: Double) -> Double { -Double(entry.memberCount) }
}

/// The viewer's relevance, best first.
private struct RelevanceKey: FeedRankingKey {
    let relevance: Relevance
    let ties: ViewerTies

    func key(_ slot: Int32, _ entry: FeedEntry, _ distanceKm: Double) -> Double {
        -relevance.score(
            activities: Int(entry.activityCount), shared: ties.shared(slot),
            distanceKm: distanceKm.isNaN ? nil : distanceKm, friendsGoing: ties.friendsGoing(slot),
            startsAt: entry.startsAt, memberCount: Int(entry.memberCount),
            capacity: entry.capacity == 0 ? nil : Int(entry.capacity))
    }

    func lowest(onlineFrom startsAt: Double, fullness: Double) -> Double {
        -relevance.bestWithoutTies(onlineFrom: startsAt, fullness: fullness)
    }

    func lowest(locatedFrom startsAt: Double, nearestKm: Double) -> Double {
        -relevance.bestWithoutTies(locatedFrom: startsAt, nearestKm: nearestKm)
    }

    /// The viewer shares an activity with it or has a friend going.
    func isTied(_ slot: Int32) -> Bool { ties.isTied(slot) }

    var tiedSlots: [Int32] { ties.slots }

    /// Nearness counts a half for an online meeting, as for a located one 5 km away.
    var ranksOnlineHigh: Bool { true }
}

/// The filters of a request, with ids interned the index's way.
struct FeedFilter {
    let from: Double
    let to: Double?
    let freeOnly: Bool
    let hasSpots: Bool
    /// Per slot, non-zero when the meeting has one of the asked activities; `nil`: any.
    let withActivity: [UInt8]?
    let blockedOrganizers: Set<UInt32>

    init(_ request: FeedRequest, from: Double, viewer: FeedViewer, in state: FeedIndexState) {
        self.from = from
        to = request.to?.timeIntervalSince1970
        freeOnly = request.freeOnly
        hasSpots = request.hasSpots
        withActivity = request.activityIds.isEmpty
            ? nil : state.tally(Set(request.activityIds).compactMap { state.activities[$0] }, of: state.meetingsWith)
        blockedOrganizers = Set(viewer.blockedUserIds.compactMap { state.users[$0] })
    }

    func admits(_ entry: FeedEntry, slot: Int32) -> Bool {
        entry.startsAt >= from
            && (to.map { entry.startsAt < $0 } ?? true)
            && (!freeOnly || entry.isFree)
            && (!hasSpots || entry.hasSpots)
            && (withActivity.map { $0[Int(slot)] > 0 } ?? true)
            && (blockedOrganizers.isEmpty || !blockedOrganizers.contains(entry.organizer))
    }
}

/// Great-circle distances from the centre of a circle, through the chord between points on
/// the unit sphere: (chord / 2)² is the haversine of the angle, so the distance is
/// 2R·asin(chord / 2), the haversine formula of `Coordinate.distanceKm` without its
/// sines and cosines; and a point beyond the radius is known before any `asin`.
struct CircleDistance {
    let x: Double
    let y: Double
    let z: Double
    let radiusKm: Double
    /// The haversine of the radius, a hair wider so rounding never loses a point.
    let maxHaversine: Double
    /// The haversine of the radius, a hair narrower: a point within it is inside whatever
    /// `asin` rounds to (the hair is 10⁻⁹, rounding errors 10⁻¹⁶).
    let minHaversine: Double

    init(_ circle: GeoCircle) {
        let (φ, λ) = (circle.lat * .pi / 180, circle.lon * .pi / 180)
        (x, y, z) = (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
        radiusKm = circle.radiusKm
        let halfAngle = sin(min(.pi / 2, circle.radiusKm / Coordinate.earthRadiusKm / 2))
        maxHaversine = halfAngle * halfAngle * (1 + 1e-9)
        minHaversine = halfAngle * halfAngle * (1 - 1e-9)
    }

    /// Whether `entry` is in the circle: `distanceKm(to:) != nil`, with an `asin` only for
    /// points within a hair of the edge.
    func contains(_ entry: FeedEntry) -> Bool {
        let (dx, dy, dz) = (entry.x - x, entry.y - y, entry.z - z)
        let h = (dx * dx + dy * dy + dz * dz) / 4
        return h <= minHaversine || (h <= maxHaversine && distanceKm(to: entry) != nil)
    }

    /// The distance to `entry`, or `nil` when it is outside the circle.
    func distanceKm(to entry: FeedEntry) -> Double? {
        let (dx, dy, dz) = (entry.x - x, entry.y - y, entry.z - z)
        let h = (dx * dx + dy * dy + dz * dz) / 4
        guard h <= maxHaversine else { return nil }
        let distance = 2 * Coordinate.earthRadiusKm * asin(min(1, h.squareRoot()))
        return distance <= radiusKm ? distance : nil
    }
}
