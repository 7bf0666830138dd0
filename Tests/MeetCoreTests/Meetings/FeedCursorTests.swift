import Foundation
import GRDB
import Testing
@testable import MeetCore

/// The lists behind feed cursors: compact, lazily sorted after the first page, held within
/// a byte budget oldest-out-first, and saved over a restart.
@Suite struct FeedCursorTests {
    static let center = FeedTests.center

    /// `count` ranked meetings with many equal keys and starts, numbers from `firstNumber`.
    static func ranked(_ count: Int, firstNumber: Int64 = 1, seed: UInt64 = 3) -> [RankedMeeting] {
        var generator = SpatialGridTests.Lcg(state: seed)
        return (0..<count).map { i in
            RankedMeeting(
                key: Double(Int.random(in: 0..<5, using: &generator)), startsAt: Double(Int.random(in: 0..<3, using: &generator)),
                number: firstNumber + Int64(i))
        }.shuffled(using: &generator)
    }

    static func snapshot(_ viewer: String, created: Date, meetings: Int) -> FeedSnapshots.Snapshot {
        var ranked = ranked(meetings)
        ranked.keepSmallest(meetings, sortingFirst: 10)
        return FeedSnapshots.Snapshot(
            viewerId: viewer, created: created, center: nil, list: FeedList(ranked, sortedCount: 10)!)
    }

    @Test func keepingTheSmallestSortsOnlyWhatIsAsked() {
        var generator = SpatialGridTests.Lcg(state: 7)
        for count in [0, 1, 2, 5, 50, 999, 1000, 1001, 5000] {
            let values = (0..<count).map { _ in Int.random(in: 0..<(count / 2 + 1), using: &generator) }
            for (k, sorted) in [(1, 1), (3, 0), (3, 3), (1000, 20), (1000, 1000), (1000, 2000)] {
                var kept = values
                kept.keepSmallest(k, sortingFirst: sorted)
                let expected = Array(values.sorted().prefix(k))
                let sortedCount = min(sorted, expected.count)
                #expect(kept.count == expected.count, "\(count) values, k \(k)")
                #expect(Array(kept.prefix(sortedCount)) == Array(expected.prefix(sortedCount)), "\(count) values, k \(k), sorted \(sorted)")
                #expect(kept.sorted() == expected, "\(count) values, k \(k), sorted \(sorted)")
            }
        }
        // The smallest values where the sample is drawn: the narrowed front falls short and
        // the whole array is searched.
        let count = 5000, size = [Int].sampleSize
        let sampled = Set((0..<size).map { $0 * count / size })
        let values = (0..<count).map { sampled.contains($0) ? $0 : 10_000 + $0 }
        var kept = values
        kept.keepSmallest(1000, sortingFirst: 1000)
        #expect(kept == Array(values.sorted().prefix(1000)))
    }

    /// `SmallestMeetings` takes the last after a cut as the depth-th smallest.
    @Test func cuttingToTheSmallestLeavesTheLargestOfThemLast() {
        var generator = SpatialGridTests.Lcg(state: 11)
        for (count, k) in [(2, 1), (10, 3), (1501, 1000), (5000, 1000), (9000, 20)] {
            let values = (0..<count).map { _ in Int.random(in: 0..<(count / 3 + 1), using: &generator) }
            var kept = values
            kept.cutToSmallest(k)
            let expected = Array(values.sorted().prefix(k))
            #expect(kept.sorted() == expected && kept.last == expected.last, "\(count) values, k \(k)")
        }
        var kept = SmallestMeetings(20)
        let offered = Self.ranked(500)
        for meeting in offered { kept.offer(meeting) }
        // The 20th smallest at the last cut: never below the true 20th.
        #expect(kept.worst.map { $0 >= offered.sorted()[19] } == true)
        #expect(kept.smallest(sortingFirst: 20) == Array(offered.sorted().prefix(20)))
    }

    @Test func aListSortsItsTailIntoTheOrderOfAFullSort() throws {
        for (count, sorted) in [(1000, 20), (1000, 0), (57, 7), (5, 5)] {
            var ranked = Self.ranked(count, firstNumber: 4_000_000_000)
            let expected = ranked.sorted().map(\.number)
            ranked.keepSmallest(count, sortingFirst: sorted)
            var list = try #require(FeedList(ranked, sortedCount: sorted))
            #expect(list.isSorted(through: sorted) && list.numbers(0..<sorted) == Array(expected.prefix(sorted)))
            #expect(list.isSorted(through: sorted + 1) == (sorted == count))
            let unsortedBytes = list.bytes
            list.sortTail()
            #expect(list.numbers(0..<count) == expected)
            #expect(list.bytes == unsortedBytes - 16 * (count - sorted))
        }
        // Numbers 2³² or more apart do not fit in 32-bit offsets.
        let apart = [RankedMeeting(key: 0, startsAt: 0, number: 1), RankedMeeting(key: 1, startsAt: 0, number: 1 + (1 << 32))]
        #expect(FeedList(apart, sortedCount: 1) == nil)
        #expect(FeedList(Array(apart.prefix(1)), sortedCount: 1)?.numbers(0..<1) == [1])
    }

    @Test func theBudgetHoldsAndTheOldestGoFirst() throws {
        let one = Self.snapshot("v", created: MeetingFixture.now, meetings: 1000).bytes
        let store = FeedSnapshots(budget: 5 * one + one / 10)
        var tokens: [String] = []
        for i in 0..<12 {
            tokens.append(store.store(Self.snapshot("v", created: MeetingFixture.now + Double(i), meetings: 1000)))
            #expect(store.bytes <= store.budget)
        }
        let later = MeetingFixture.now + 20
        let kept = tokens.map { store.snapshot($0, viewer: "v", now: later, sortedThrough: 0) != nil }
        #expect(kept == Array(repeating: false, count: 7) + Array(repeating: true, count: 5))
        // A sorted tail takes less: room for a newcomer without evicting anyone.
        let sortedBefore = store.bytes
        _ = store.snapshot(tokens[7], viewer: "v", now: later, sortedThrough: 1000)
        #expect(store.bytes == sortedBefore - 16 * 990)
        let small = store.store(Self.snapshot("v", created: later, meetings: 200))
        #expect(tokens[7...].allSatisfy { store.snapshot($0, viewer: "v", now: later, sortedThrough: 0) != nil })
        // A big one pushes out the oldest left first, never a newer before an older.
        let newest = store.store(Self.snapshot("v", created: later, meetings: 1000))
        let present = (tokens[7...] + [small, newest]).map { store.snapshot($0, viewer: "v", now: later, sortedThrough: 0) != nil }
        #expect(!present[0] && present.last! && present == present.sorted { !$0 && $1 })
        #expect(store.bytes <= store.budget)
        // Expired ones leave when the next list comes, whatever the budget.
        let muchLater = later + FeedSnapshots.lifetime + 1
        _ = store.store(Self.snapshot("v", created: muchLater, meetings: 10))
        #expect(store.live(now: muchLater).count == 1)
        #expect(store.bytes == Self.snapshot("v", created: muchLater, meetings: 10).bytes)
    }

    /// A list ranked deeper replaces its five pages once, sorted whole (a racing page may read
    /// it with any page size), and within the budget; a second deeper list, from a racing
    /// page, gives way to the first. (That a copy of the five pages sorted meanwhile does not
    /// take its place back needs a race this test cannot time; `FeedSnapshots.snapshot`.)
    @Test func aListRankedDeeperIsStoredOnceSortedAndWithinTheBudget() {
        func fivePages(_ i: Int) -> FeedSnapshots.Snapshot {
            var snapshot = Self.snapshot("v", created: MeetingFixture.now + Double(i), meetings: 100)
            snapshot.deeper = FeedRequest(sort: .popularity)
            return snapshot
        }
        let store = FeedSnapshots(budget: 4 * fivePages(0).bytes)
        let tokens = (0..<4).map { store.store(fivePages($0)) }
        var deeper = Self.snapshot("v", created: MeetingFixture.now + 3, meetings: 1000)
        deeper.list.sortTail()
        let later = MeetingFixture.now + 20
        #expect(store.deepen(tokens[3], to: deeper).list.count == 1000)
        #expect(store.bytes <= store.budget)
        #expect(store.snapshot(tokens[0], viewer: "v", now: later, sortedThrough: 0) == nil)
        // A second deeper list, from a racing page, gives way to the first.
        var other = Self.snapshot("v", created: MeetingFixture.now + 3, meetings: 900)
        other.list.sortTail()
        #expect(store.deepen(tokens[3], to: other).list.count == 1000)
        let read = store.snapshot(tokens[3], viewer: "v", now: later, sortedThrough: 1000)
        #expect(read?.list.count == 1000 && read?.deeper == nil && read?.list.isSorted(through: 1000) == true)
    }

    @Test func anEvictedCursorAnswersGone() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        for i in 0..<5 { _ = try await FeedTests().meeting(f, "m\(i)", in: Double(10 + i)) }
        let first = try await f.service.feed(FeedRequest(limit: 2), viewer: "viewer")
        let cursor = try #require(first.nextCursor)
        var request = FeedRequest(limit: 2)
        request.cursor = cursor
        #expect(try await f.service.feed(request, viewer: "viewer").items.count == 2)
        // Newer lists fill the budget: the oldest, this one, makes way.
        let big = Self.snapshot("someone", created: MeetingFixture.now, meetings: 500_000)
        for _ in 0...(FeedSnapshots.byteBudget / big.bytes) { _ = f.service.snapshots.store(big) }
        #expect(f.service.snapshots.bytes <= FeedSnapshots.byteBudget)
        #expect(await errorCode { _ = try await f.service.feed(request, viewer: "viewer") } == "feed.cursorExpired")
    }

    /// Meetings with many ties in every order: few places, few start times, few sizes.
    func tiedMeetings(_ f: MeetingFixture, count: Int) async throws {
        let joiners = (0..<3).map { "j\($0)" }
        try f.users(["ann", "viewer"] + joiners)
        for i in 0..<count {
            let meeting = try await FeedTests().meeting(
                f, "m\(i)", northKm: Double(i % 3), in: Double(10 + i % 4), online: i % 11 == 0 ? true : nil)
            for joiner in joiners.prefix(i % 3) { _ = try await f.service.join(meeting.id, by: joiner) }
        }
    }

    /// Every page through `request`, `limit` at a time: ids and distances.
    func pages(_ f: MeetingFixture, service: MeetingService? = nil, _ request: FeedRequest, cursor: String? = nil) async throws -> [String] {
        let service = service ?? f.service
        var request = request
        request.cursor = cursor
        var seen: [String] = []
        repeat {
            let page = try await service.feed(request, viewer: "viewer")
            seen += page.items.map { "\($0.title) \($0.distanceKm.map { String(format: "%.6f", $0) } ?? "-")" }
            request.cursor = page.nextCursor
        } while request.cursor != nil
        return seen
    }

    @Test(arguments: [FeedRequest.Sort.date, .distance, .popularity, .relevance])
    func pagesAcrossTheUnsortedTailFollowOneSortedList(sort: FeedRequest.Sort) async throws {
        let f = try MeetingFixture()
        try await tiedMeetings(f, count: 60)
        var request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, sort: sort, limit: FeedRequest.maxLimit)
        let whole = try await pages(f, request)
        #expect(whole.count == 60)
        // Page sizes that end inside the tail, on its first element, and change on the way.
        for limit in [7, 1, 20, 59] {
            request.limit = limit
            #expect(try await pages(f, request) == whole, "\(sort), limit \(limit)")
        }
        request.limit = 5
        let first = try await f.service.feed(request, viewer: "viewer")
        request.limit = 30
        #expect(try await pages(f, request, cursor: first.nextCursor) == Array(whole.dropFirst(5)))
    }

    @Test func aListRankedDeeperKeepsItsFirstPagesAndTakesInWhatCameSince() async throws {
        let f = try MeetingFixture()
        try await tiedMeetings(f, count: 30)
        try f.users("k0", "k1", "k2", "k3")
        let request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, sort: .popularity, limit: 2)
        let before = try await pages(f, request).map { String($0.split(separator: " ")[0]) }
        #expect(before.count == 30)
        func id(_ title: String) throws -> String {
            try f.database.reader.read { db in try String.fetchOne(db, sql: "SELECT id FROM meeting WHERE title = ?", arguments: [title]) }!
        }
        // The first page ranks five pages, ten meetings. Then a meeting more popular than
        // all appears, and one listed among the ten and one after them gain members.
        let first = try await f.service.feed(request, viewer: "viewer")
        let newcomer = try await FeedTests().meeting(f, "newcomer", in: 10)
        for joiner in ["k0", "k1", "k2", "k3"] {
            _ = try await f.service.join(newcomer.id, by: joiner)
            _ = try await f.service.join(try id(before[9]), by: joiner)
            _ = try await f.service.join(try id(before[25]), by: joiner)
        }
        let after = try await (first.items.map(\.title) + pages(f, request, cursor: first.nextCursor))
            .map { String($0.split(separator: " ")[0]) }
        #expect(after.count == 31 && Set(after).count == 31)
        #expect(Array(after.prefix(10)) == Array(before.prefix(10)))
        // Ranked deeper as at the first page, with the meetings listed then left out.
        #expect(Set(after.dropFirst(10).prefix(2)) == ["newcomer", before[25]])
        #expect(Set(after) == Set(before + ["newcomer"]))
    }

    @Test func savedCursorsCarryOnInTheNextRun() async throws {
        let f = try MeetingFixture()
        try await tiedMeetings(f, count: 30)
        let request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, sort: .popularity, limit: 4)
        let first = try await f.service.feed(request, viewer: "viewer")
        let cursor = try #require(first.nextCursor)
        let rest = try await pages(f, request, cursor: cursor)
        #expect(rest.count == 26)
        // A second list whose tail nobody sorted yet, and one without a point.
        let unsorted = try #require(try await f.service.feed(request, viewer: "viewer").nextCursor)
        let pointless = try #require(try await f.service.feed(FeedRequest(limit: 4), viewer: "viewer").nextCursor)
        let pointlessRest = try await pages(f, FeedRequest(limit: 4), cursor: pointless)

        try await f.service.saveFeedCursors()
        let rows = try f.database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT token, lat, lon, base, length(offsets) AS size, deeper FROM feedSnapshot ORDER BY createdAt, token")
        }
        #expect(rows.count == 3)
        // The first pages ranked five pages (20); the two lists read past them were ranked
        // deeper, the other keeps its request for that.
        #expect(rows.map { $0["size"] as Int }.sorted() == [20 * 4, 30 * 4, 30 * 4])
        #expect(rows.filter { ($0["deeper"] as String?) != nil }.map { $0["size"] as Int } == [20 * 4])
        #expect(rows.filter { ($0["lat"] as Double?) == Self.center.lat && ($0["lon"] as Double?) == Self.center.lon }.count == 2)

        let next = MeetingService(database: f.database, resolvePlace: MeetingFixture.resolve, now: { MeetingFixture.now })
        try next.restoreFeedCursors()
        #expect(try await pages(f, service: next, request, cursor: cursor) == rest)
        #expect(try await pages(f, service: next, request, cursor: unsorted) == rest)
        #expect(try await pages(f, service: next, FeedRequest(limit: 4), cursor: pointless) == pointlessRest)
        #expect(try await f.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedSnapshot") } == 0)
    }
}
