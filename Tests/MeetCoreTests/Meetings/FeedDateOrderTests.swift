import Foundation
import Testing
@testable import MeetCore

/// The date order near a point takes the index's time-ordered lists by windows of time and
/// stops after the depth (`FeedIndexState.rankByDate`): it must answer exactly what ranking
/// every candidate in the circle did, under any mix of writes, filters and depths.
@Suite struct FeedDateOrderTests {
    static let center = FeedTests.center
    static let start = MeetingFixture.now.timeIntervalSince1970
    static let users = (0..<6).map { "u\($0)" }
    static let activities = ["chess", "hiking", "running"]

    /// Random meetings around the centre, online and unplaced, then random writes: new
    /// meetings, moves in time (many at the same hour, so ties go by number) and in space
    /// (into and out of the circle, online and back), joins that fill a meeting, cancels.
    /// After each batch every list is in time order, the index equals a fresh load, and
    /// random date queries near random points equal a plain scan of every meeting.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func takingByTimeEqualsAScanOfEveryMeeting(seed: UInt64) {
        var random = SpatialGridTests.Lcg(state: seed)
        func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        func somewhere(_ row: inout FeedRow) {
            row.online = below(6) == 0
            let unplaced = !row.online && below(15) == 0
            row.lat = unplaced ? nil : Self.center.lat + Double.random(in: -0.5...0.5, using: &random)
            row.lon = unplaced ? nil : Self.center.lon + Double.random(in: -0.7...0.7, using: &random)
        }
        func newRow(_ number: Int64) -> FeedRow {
            let capacity = below(2) == 0 ? nil : 1 + below(4)
            var row = FeedRow(
                number: number, startsAt: Self.start + Double(1 + below(120)) * 3600, online: false, lat: nil, lon: nil,
                memberCount: 1 + below(capacity ?? 4), maxParticipants: capacity, isFree: below(3) > 0,
                organizerId: Self.users[below(Self.users.count)],
                activityIds: Self.activities.filter { _ in below(3) == 0 })
            somewhere(&row)
            return row
        }
        var indexed = IndexedFeedRows((1...300).map { newRow(Int64($0)) })
        for _ in 0..<12 {
            for _ in 0..<40 {
                indexed.write(meeting: below(indexed.rows.count), kind: below(6), newRow: newRow) { row, kind in
                    switch kind {
                    case 2: row.startsAt = Self.start + Double(1 + below(120)) * 3600
                    case 3: somewhere(&row)
                    case 4: row.memberCount = row.maxParticipants ?? row.memberCount + 1
                    default: row.activityIds = Self.activities.filter { _ in below(2) == 0 }
                    }
                }
            }
            let (rows, state) = (indexed.rows, indexed.state)
            expectListsInTimeOrder(state)
            #expect(state.listing == FeedIndexState(loading: Array(rows.values)).listing)
            for _ in 0..<25 {
                var request = FeedRequest(
                    lat: Self.center.lat + Double.random(in: -0.3...0.3, using: &random), lon: Self.center.lon,
                    radiusKm: Double.random(in: 3...40, using: &random), sort: .date)
                switch below(5) {
                case 0: request.activityIds = [Self.activities[below(3)]]
                case 1: request.freeOnly = true
                case 2: request.hasSpots = true
                default: break
                }
                let from = Self.start + (below(2) == 0 ? 0 : Double(below(100)) * 3600)
                if below(3) == 0 { request.to = Date(timeIntervalSince1970: from + Double(1 + below(60)) * 3600) }
                let viewer = FeedViewer(blockedUserIds: below(2) == 0 ? [Self.users[below(Self.users.count)]] : [])
                let depth = [1, 5, 20, 60, 1000][below(5)]
                let sorted = min(depth, 1 + below(20))
                guard let expected = scan(rows.values, request, from: from, viewer: viewer) else { continue }
                let ranked = state.rank(request, from: from, viewer: viewer, now: Self.start, depth: depth, sorted: sorted)
                // The first `sorted` in order, the rest of the depth after them in any order.
                #expect(ranked.prefix(sorted).map(\.number) == Array(expected.prefix(sorted)))
                #expect(ranked.count == min(depth, expected.count))
                #expect(Set(ranked.map(\.number)) == Set(expected.prefix(depth)))
                #expect(ranked.allSatisfy { $0.key == $0.startsAt })
            }
        }
    }

    /// Pages of a nearby date feed through cursors, after creates, joins, edits in time and
    /// place, and cancels, are the plain SQL answer, page after page.
    @Test func cursorPagesFollowThePlainAnswer() async throws {
        let f = try MeetingFixture()
        try f.users(["ann", "bob", "viewer"])
        var ids: [String] = []
        for index in 0..<30 {
            let draft = MeetingFixture.draft(
                title: "m\(index)", in: Double(1 + index % 7),
                place: PlaceInput(lat: Self.center.lat + Double(index % 9 - 4) / 20, lon: Self.center.lon),
                capacity: index % 4 == 0 ? 2 : nil, online: index % 5 == 0)
            ids.append(try await f.service.create(draft, by: "ann").id)
        }
        _ = try await f.service.join(ids[4], by: "bob")
        _ = try await f.service.cancel(ids[6], by: "ann")
        var later = MeetingChanges()
        later.startsAt = MeetingFixture.time(hours: 3)
        _ = try await f.service.update(ids[8], with: later, by: "ann")
        var away = MeetingChanges()
        away.place = PlaceInput(lat: Self.center.lat + 2, lon: Self.center.lon)
        _ = try await f.service.update(ids[9], with: away, by: "ann")
        var request = FeedIndexTests.nearby
        request.limit = FeedRequest.maxLimit
        let expected = try FeedIndexTests().referenceFeed(f, request, viewer: "viewer")
        #expect(expected.count > 15)
        request.limit = 4
        var seen: [String] = []
        var page = try await f.service.feed(request, viewer: "viewer")
        seen += page.items.map(\.id)
        while let cursor = page.nextCursor, seen.count <= expected.count {
            request.cursor = cursor
            page = try await f.service.feed(request, viewer: "viewer")
            seen += page.items.map(\.id)
        }
        #expect(seen == expected)
    }

    /// The meetings `request` shows, in date order, by looking at every one; `nil` when one
    /// lies too close to the circle's edge for two ways of measuring to agree.
    func scan(_ rows: Dictionary<Int64, FeedRow>.Values, _ request: FeedRequest, from: Double, viewer: FeedViewer) -> [Int64]? {
        let circle = request.circle!
        var shown: [FeedRow] = []
        for row in rows {
            if !row.online, let lat = row.lat, let lon = row.lon {
                let distance = circle.distanceKm(toLat: lat, lon: lon)
                if abs(distance - circle.radiusKm) < 1e-6 { return nil }
                if distance > circle.radiusKm { continue }
            } else if !row.online {
                continue
            }
            let full = row.maxParticipants.map { row.memberCount >= $0 } ?? false
            guard row.startsAt >= from, request.to.map({ row.startsAt < $0.timeIntervalSince1970 }) ?? true,
                  !request.freeOnly || row.isFree, !request.hasSpots || !full,
                  request.activityIds.isEmpty || !Set(request.activityIds).isDisjoint(with: row.activityIds),
                  !viewer.blockedUserIds.contains(row.organizerId) else { continue }
            shown.append(row)
        }
        return shown.sorted { ($0.startsAt, $0.number) < ($1.startsAt, $1.number) }.map(\.number)
    }

    func expectListsInTimeOrder(_ state: FeedIndexState, sourceLocation: SourceLocation = #_sourceLocation) {
        func ordered(_ list: [Int32]) -> Bool {
            zip(list, list.dropFirst()).allSatisfy { earlier, later in
                let (a, b) = (state.entries[Int(earlier)], state.entries[Int(later)])
                return (a.startsAt, a.number) < (b.startsAt, b.number)
            }
        }
        #expect(state.online.allSatisfy(ordered), sourceLocation: sourceLocation)
        #expect(
            state.online.indices.allSatisfy { band in state.online[band].allSatisfy { state.entries[Int($0)].fullnessBand == band } },
            sourceLocation: sourceLocation)
        #expect(state.cellLists.allSatisfy(ordered), sourceLocation: sourceLocation)
        #expect(ordered(state.byTime), sourceLocation: sourceLocation)
    }
}

/// Meetings as rows beside the index kept from them, under random writes.
struct IndexedFeedRows {
    private(set) var rows: [Int64: FeedRow]
    private(set) var state: FeedIndexState
    private var nextNumber: Int64

    init(_ rows: [FeedRow]) {
        self.rows = Dictionary(uniqueKeysWithValues: rows.map { ($0.number, $0) })
        state = FeedIndexState(loading: rows)
        nextNumber = (rows.map(\.number).max() ?? 0) + 1
    }

    /// One write: by `kind`, 0 adds a meeting made by `newRow`, 1 removes the `meeting`-th
    /// (in number order), any other applies `change` (given the kind) to its row.
    mutating func write(meeting: Int, kind: Int, newRow: (Int64) -> FeedRow, change: (inout FeedRow, Int) -> Void) {
        var row = rows[rows.keys.sorted()[meeting]]!
        switch kind {
        case 0:
            row = newRow(nextNumber)
            nextNumber += 1
        case 1:
            state.remove(row.number)
            rows[row.number] = nil
            return
        default: change(&row, kind)
        }
        state.upsert(row)
        rows[row.number] = row
    }
}
