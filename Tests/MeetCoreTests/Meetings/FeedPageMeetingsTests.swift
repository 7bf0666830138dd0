import Foundation
import GRDB
import Testing
@testable import MeetCore

/// Feed pages take the meetings they showed lately from memory: every write must still show
/// on the next page, whoever made it, and a read racing a write must not keep what it read.
@Suite struct FeedPageMeetingsTests {
    func page(_ f: MeetingFixture) async throws -> [Meeting] {
        try await f.service.feed(FeedIndexTests.nearby, viewer: "viewer").items
    }

    @Test func editsInThisProcessShowOnTheNextPage() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "viewer")
        let meeting = try await f.service.create(MeetingFixture.draft(title: "run", capacity: 3, activityIds: ["running"]), by: "ann")
        #expect(try await page(f).map(\.title) == ["run"])
        var changes = MeetingChanges()
        changes.title = "long run"
        changes.activityIds = ["hiking", "running"]
        _ = try await f.service.update(meeting.id, with: changes, by: "ann")
        #expect(try await page(f).map(\.title) == ["long run"])
        #expect(try await page(f).map(\.activityIds) == [["hiking", "running"]])
        _ = try await f.service.join(meeting.id, by: "bob")
        #expect(try await page(f).map(\.memberCount) == [2])
        try await f.database.writer.write { db in
            try db.execute(sql: "UPDATE meeting SET title = 'renamed in SQL' WHERE id = ?", arguments: [meeting.id])
        }
        #expect(try await page(f).map(\.title) == ["renamed in SQL"])
        try await f.database.writer.write { db in
            try db.execute(sql: "DELETE FROM meetingActivity WHERE meetingId = ? AND activityId = 'hiking'", arguments: [meeting.id])
        }
        #expect(try await page(f).map(\.activityIds) == [["running"]])
        // The distance is measured per page, from the point asked about.
        var farther = FeedIndexTests.nearby
        farther.lat = FeedTests.center.lat + 0.1
        let distance = try #require(try await f.service.feed(farther, viewer: "viewer").items.first?.distanceKm)
        #expect(abs(distance - 11.1) < 0.1)
    }

    @Test func anotherProcessesWriteShowsOnceTheChangeLogBringsIt() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        let meeting = try await f.service.create(MeetingFixture.draft(title: "run"), by: "ann")
        #expect(try await page(f).map(\.title) == ["run"])
        let other = try DatabaseQueue(path: f.folder.url.appendingPathComponent("db.sqlite").path)
        let number = try await other.write { db in
            try db.execute(sql: "UPDATE meeting SET title = 'renamed elsewhere' WHERE id = ?", arguments: [meeting.id])
            return try Int64.fetchOne(db, sql: "SELECT number FROM meeting WHERE id = ?", arguments: [meeting.id])!
        }
        try other.close()
        await f.service.index.follow([number])
        #expect(try await page(f).map(\.title) == ["renamed elsewhere"])
    }

    @Test func aReadOlderThanADropIsNotKept() throws {
        let meetings = FeedPageMeetings()
        let meeting = Meeting(
            id: "m", organizerId: "ann", title: "old", description: "", visibility: .public, status: .scheduled,
            startsAt: MeetingFixture.now, endsAt: nil, online: true, place: nil, price: nil, maxParticipants: nil,
            memberCount: 1, membersMayInvite: false, activityIds: [], photoId: nil, createdAt: MeetingFixture.now,
            updatedAt: MeetingFixture.now, revision: 1, distanceKm: nil)
        let item = PageMeeting(meeting: meeting, isListed: true, point: nil)
        let before = meetings.generation
        // A commit touched meeting 1 while the read was under way.
        meetings.drop([1])
        meetings.keep([1: item], readSince: before)
        #expect(meetings.values([1]).isEmpty)
        meetings.keep([1: item], readSince: meetings.generation)
        #expect(meetings.values([1, 2]).keys.sorted() == [1])
        // Bounded: past its byte budget it starts afresh.
        let many = Dictionary(uniqueKeysWithValues: (2...Int64(FeedPageMeetings.byteBudget / item.bytes) + 1).map { ($0, item) })
        meetings.keep(many, readSince: meetings.generation)
        #expect(meetings.values([1, 2]).keys.sorted() == [2])
        // What a fresh start drops is freed, on another thread: a reading only the cache held
        // goes soon after.
        weak var dropped: PageMeeting?
        do {
            let alone = PageMeeting(meeting: meeting, isListed: true, point: nil)
            dropped = alone
            meetings.keep([0: alone], readSince: meetings.generation)
        }
        #expect(meetings.values([0]).keys.sorted() == [0])
        CacheRelease.queue.suspend()
        meetings.keep(many, readSince: meetings.generation)
        #expect(dropped != nil)  // not freed by the request that started afresh
        CacheRelease.queue.resume()
        let deadline = ContinuousClock.now + .seconds(5)
        while dropped != nil, ContinuousClock.now < deadline { usleep(1000) }
        #expect(dropped == nil)
    }
}
