import Foundation
import GRDB
import Testing
@testable import MeetCore

@Suite struct FeedTests {
    /// Kyiv's centre; one degree of latitude is about 111 km.
    static let center = (lat: 50.45, lon: 30.52)

    func meeting(_ f: MeetingFixture, _ title: String, northKm: Double = 0, in hours: Double = 24, capacity: Int? = nil,
                 activityIds: [String]? = nil, price: Price? = nil, online: Bool? = nil) async throws -> Meeting {
        let place = PlaceInput(lat: Self.center.lat + northKm / 111.2, lon: Self.center.lon)
        return try await f.service.create(
            MeetingFixture.draft(title: title, in: hours, place: place, capacity: capacity, activityIds: activityIds, price: price, online: online),
            by: "ann")
    }

    func titles(_ page: FeedPage) -> [String] { page.items.map(\.title) }

    @Test func nearbyKeepsTheRadiusAndAddsOnlineMeetings() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        _ = try await meeting(f, "here", in: 30)
        _ = try await meeting(f, "ten km", northKm: 10, in: 20)
        _ = try await meeting(f, "far", northKm: 100)
        _ = try await meeting(f, "online far", northKm: 1000, in: 10, online: true)
        var request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, radiusKm: 20)
        #expect(titles(try await f.service.feed(request, viewer: "viewer")) == ["online far", "ten km", "here"])
        request.sort = .distance
        let page = try await f.service.feed(request, viewer: "viewer")
        #expect(titles(page) == ["here", "ten km", "online far"])
        #expect(abs(page.items[1].distanceKm! - 10) < 0.1)
        // Without a point, every public meeting counts.
        #expect(try await f.service.feed(FeedRequest(), viewer: "viewer").items.count == 4)
    }

    @Test func filtersNarrowTheFeed() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "viewer")
        _ = try await meeting(f, "paid", in: 10, price: Price(amount: 5, currency: "EUR"))
        let full = try await meeting(f, "full", in: 20, capacity: 2, activityIds: ["chess"])
        _ = try await f.service.join(full.id, by: "bob")
        _ = try await meeting(f, "later", in: 100, activityIds: ["hiking"])
        _ = try await f.service.create(MeetingFixture.draft(title: "private", visibility: "private"), by: "ann")
        let cancelled = try await meeting(f, "cancelled")
        _ = try await f.service.cancel(cancelled.id, by: "ann")

        func feed(_ request: FeedRequest) async throws -> [String] { titles(try await f.service.feed(request, viewer: "viewer")) }
        #expect(try await feed(FeedRequest()) == ["paid", "full", "later"])
        #expect(try await feed(FeedRequest(freeOnly: true)) == ["full", "later"])
        #expect(try await feed(FeedRequest(hasSpots: true)) == ["paid", "later"])
        #expect(try await feed(FeedRequest(activityIds: ["hiking", "chess"])) == ["full", "later"])
        #expect(try await feed(FeedRequest(from: MeetingFixture.now + 15 * 3600, to: MeetingFixture.now + 50 * 3600)) == ["full"])
        #expect(try await feed(FeedRequest(sort: .popularity)) == ["full", "paid", "later"])
    }

    @Test func relevancePrefersNearSoonAndLively() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "viewer")
        _ = try await meeting(f, "far and late", northKm: 15, in: 24 * 20)
        let near = try await meeting(f, "near and soon", northKm: 1, in: 5, capacity: 4)
        _ = try await f.service.join(near.id, by: "bob")
        _ = try await meeting(f, "near, later", northKm: 1, in: 24 * 5)
        let request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, sort: .relevance)
        #expect(titles(try await f.service.feed(request, viewer: "viewer")) == ["near and soon", "near, later", "far and late"])
    }

    @Test func relevanceWeighsSharedActivitiesAndFriendsGoing() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer", "pal1", "pal2")
        try await f.database.writer.write { db in
            try db.execute(sql: "INSERT INTO profileActivity (userId, activityId) VALUES ('viewer', 'chess')")
            for pal in ["pal1", "pal2"] {
                try db.execute(sql: "INSERT INTO friendship (userId, friendId, since) VALUES (?, ?, ?), (?, ?, ?)",
                               arguments: ["viewer", pal, MeetingFixture.now, pal, "viewer", MeetingFixture.now])
            }
        }
        _ = try await meeting(f, "plain, soon", in: 12)
        let withFriends = try await meeting(f, "friends going", in: 36)
        for pal in ["pal1", "pal2"] { _ = try await f.service.join(withFriends.id, by: pal) }
        _ = try await meeting(f, "chess, later", in: 60, activityIds: ["chess"])
        var request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon)
        #expect(titles(try await f.service.feed(request, viewer: "viewer")) == ["plain, soon", "friends going", "chess, later"])
        request.sort = .relevance
        #expect(titles(try await f.service.feed(request, viewer: "viewer")) == ["chess, later", "friends going", "plain, soon"])
        // Someone without those activities and friends sees the soonest first.
        #expect(titles(try await f.service.feed(request, viewer: "ann")).first == "plain, soon")
    }

    @Test func meetingsOfBlockedOrganizersAreHidden() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        let meeting = try await meeting(f, "ann's")
        try await f.database.writer.write { db in
            try db.execute(sql: "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('ann', 'viewer', ?)", arguments: [MeetingFixture.now])
        }
        #expect(try await f.service.feed(FeedRequest(), viewer: "viewer").items.isEmpty)
        #expect(await errorCode { _ = try await f.service.meeting(meeting.id, viewer: "viewer") } == "meeting.notFound")
        #expect(await fieldProblems { _ = try await f.service.invite(["viewer"], to: meeting.id, by: "ann") } == ["userIds:user.unknown"])
    }

    @Test func pagesStayStableWhileTheDataChanges() async throws {
        let f = try MeetingFixture()
        let joiners = (0..<30).map { "j\($0)" }
        try f.users(["ann", "viewer"] + joiners)
        var all: [Meeting] = []
        for i in 0..<25 { all.append(try await meeting(f, "m\(i)", in: Double(10 + i))) }
        var request = FeedRequest(sort: .popularity, limit: 10)
        let first = try await f.service.feed(request, viewer: "viewer")
        var seen = titles(first)
        var cursor = first.nextCursor
        #expect(seen.count == 10 && cursor != nil)
        // Meetings further down get popular, a new one appears, one on the first page moves.
        for (i, joiner) in joiners.enumerated() { _ = try await f.service.join(all[24 - i % 10].id, by: joiner) }
        _ = try await meeting(f, "newcomer", in: 1)
        while let next = cursor {
            request.cursor = next
            let page = try await f.service.feed(request, viewer: "viewer")
            seen += titles(page)
            cursor = page.nextCursor
        }
        #expect(seen.count == 25)
        #expect(Set(seen) == Set(all.map(\.title)))
        // Someone else's cursor is not mine.
        request.cursor = try await f.service.feed(FeedRequest(limit: 1), viewer: "ann").nextCursor
        #expect(await errorCode { _ = try await f.service.feed(request, viewer: "viewer") } == "feed.cursorExpired")
    }

    @Test func badRequestsAreRefusedFieldByField() async throws {
        let f = try MeetingFixture()
        let problems = await fieldProblems {
            _ = try await f.service.feed(FeedRequest(lat: 91, radiusKm: 1000, sort: .distance, limit: 0), viewer: "v")
        }
        #expect(Set(problems) == ["lon:field.required", "lat:field.outOfRange", "radiusKm:field.outOfRange", "limit:field.outOfRange"])
    }

    /// Feed pages read on the caller's thread (`AppDatabase.quickRead`): many more at once
    /// than there are inline connections or pool readers, beside pool reads and a write, all
    /// answer, and alike. (A feed read that waited on its thread for a pool reader deadlocked
    /// here: the pool's readers wait for their tasks to resume on those very threads.)
    @Test(.timeLimit(.minutes(1))) func moreFeedsAtOnceThanReadersAllAnswer() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer", "bob")
        var created: [String] = []
        for i in 0..<3 { created.append(try await meeting(f, "m\(i)", in: Double(10 + i)).id) }
        let (ids, service) = (created, f.service)
        let expected = titles(try await service.feed(FeedRequest(limit: 2), viewer: "viewer"))
        #expect(expected == ["m0", "m1"])
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask {
                    switch i {
                    case 0: return try await service.join(ids[2], by: "bob").title == "m2"
                    case _ where i % 4 == 1: return try await service.meeting(ids[0], viewer: "viewer").title == "m0"
                    default: return try await service.feed(FeedRequest(limit: 2), viewer: "viewer").items.map(\.title) == expected
                    }
                }
            }
            for try await answered in group { #expect(answered) }
        }
    }

    /// The feed reads no meeting rows per query; what SQL is left, loading the index and
    /// re-reading the meetings a commit touched, goes through indexes.
    @Test func theFeedIndexReadsIndexesNeverEveryMeeting() throws {
        let f = try MeetingFixture()
        let conditions: [SQL] = ["m.startsAt >= \(MeetingFixture.now.timeIntervalSince1970)", "m.number IN \([1, 2, 3])"]
        try f.database.reader.read { db in
            for condition in conditions {
                for query in FeedRows.queries(where: condition) {
                    let (sql, arguments) = try query.build(db)
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                    #expect(!plan.contains { $0.hasPrefix("SCAN m") && !$0.contains("USING") }, "\(plan)")
                    #expect(plan.contains { $0.contains("meeting_feed_time") || $0.contains("INTEGER PRIMARY KEY") }, "\(plan)")
                }
            }
        }
    }
}
