import Foundation
import GRDB
@testable import MeetCore
import Testing

/// The viewers feed pages keep (`FeedViewers`): a kept viewer saves a page its read, so each
/// change to what it rests on must show on the viewer's next page as if it were read.
@Suite struct FeedViewersTests {
    static let center = (lat: 50.45, lon: 30.52)

    @discardableResult
    func meeting(_ f: MeetingFixture, _ title: String, by organizer: String, in hours: Double, activityIds: [String]? = nil) async throws -> Meeting {
        let place = PlaceInput(lat: Self.center.lat, lon: Self.center.lon)
        return try await f.service.create(MeetingFixture.draft(title: title, in: hours, place: place, activityIds: activityIds), by: organizer)
    }

    func write(_ f: MeetingFixture, _ sql: String) async throws {
        try await f.database.writer.write { db in try db.execute(sql: sql, arguments: ["now": MeetingFixture.now]) }
    }

    @Test func eachChangeToAViewerShowsOnItsNextPage() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "viewer")
        try await meeting(f, "ann's, soon", by: "ann", in: 5)
        let bobs = try await meeting(f, "bob's chess, later", by: "bob", in: 24 * 10, activityIds: ["chess"])
        let request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon, sort: .relevance)
        func titles() async throws -> [String] { try await f.service.feed(request, viewer: "viewer").items.map(\.title) }

        #expect(try await titles() == ["ann's, soon", "bob's chess, later"])
        #expect(f.service.viewers.viewer("viewer") != nil)  // kept: the next page reads nothing
        #expect(try await titles() == ["ann's, soon", "bob's chess, later"])

        try await write(f, "INSERT INTO profileActivity (userId, activityId) VALUES ('viewer', 'chess')")
        #expect(f.service.viewers.viewer("viewer") == nil)
        #expect(try await titles() == ["bob's chess, later", "ann's, soon"])
        try await write(f, "DELETE FROM profileActivity WHERE userId = 'viewer'")
        #expect(try await titles() == ["ann's, soon", "bob's chess, later"])

        // Blocking either way hides the organizer's meetings, unblocking shows them again.
        try await write(f, "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('ann', 'viewer', :now)")
        #expect(try await titles() == ["bob's chess, later"])
        try await write(f, "DELETE FROM block")
        #expect(try await titles() == ["ann's, soon", "bob's chess, later"])
        try await write(f, "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('viewer', 'bob', :now)")
        #expect(try await titles() == ["ann's, soon"])
        try await write(f, "DELETE FROM block")

        // A friend going counts from the page after the friendship.
        try f.users("pal1", "pal2", "pal3")
        for pal in ["pal1", "pal2", "pal3"] { _ = try await f.service.join(bobs.id, by: pal) }
        #expect(try await titles() == ["ann's, soon", "bob's chess, later"])
        try await write(f, """
            INSERT INTO friendship (userId, friendId, since) VALUES
            ('viewer', 'pal1', :now), ('pal1', 'viewer', :now), ('viewer', 'pal2', :now), ('pal2', 'viewer', :now),
            ('viewer', 'pal3', :now), ('pal3', 'viewer', :now)
            """)
        #expect(try await titles() == ["bob's chess, later", "ann's, soon"])
    }

    @Test func aChangeForgetsOnlyTheUsersItConcerns() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cid", "dan")
        let viewers = f.service.viewers
        for user in ["ann", "bob", "cid", "dan"] { viewers.remember(FeedViewer(), of: user, readSince: viewers.generation) }
        try await write(f, "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('ann', 'bob', :now)")
        #expect(viewers.viewer("ann") == nil && viewers.viewer("bob") == nil)
        #expect(viewers.viewer("cid") != nil && viewers.viewer("dan") != nil)
        try await write(f, "INSERT INTO friendship (userId, friendId, since) VALUES ('cid', 'dan', :now)")
        #expect(viewers.viewer("cid") == nil && viewers.viewer("dan") == nil)
        // A write no viewer rests on (a meeting, also in the change log) leaves them kept.
        viewers.remember(FeedViewer(), of: "ann", readSince: viewers.generation)
        try await meeting(f, "ann's", by: "ann", in: 5)
        #expect(viewers.viewer("ann") != nil)
    }

    /// Rows deleted by a cascade (a user's, an activity's) and rows rewritten in place (an
    /// activity merge) change viewers too.
    @Test func cascadesAndUpdatesForgetTheirUsers() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cid")
        try await write(f, """
            INSERT INTO friendship (userId, friendId, since) VALUES ('ann', 'bob', :now), ('bob', 'ann', :now);
            INSERT INTO profileActivity (userId, activityId) VALUES ('cid', 'chess')
            """)
        let viewers = f.service.viewers
        func keep(_ users: String...) {
            for user in users { viewers.remember(FeedViewer(), of: user, readSince: viewers.generation) }
        }
        keep("ann", "bob", "cid")
        try await write(f, "DELETE FROM user WHERE id = 'bob'")
        #expect(viewers.viewer("ann") == nil && viewers.viewer("bob") == nil && viewers.viewer("cid") != nil)
        keep("ann")
        try await write(f, "UPDATE profileActivity SET activityId = 'running' WHERE userId = 'cid'")
        #expect(viewers.viewer("cid") == nil && viewers.viewer("ann") != nil)
        keep("cid")
        try await write(f, "DELETE FROM activity WHERE id = 'running'")
        #expect(viewers.viewer("cid") == nil && viewers.viewer("ann") != nil)
    }

    @Test func aReadOlderThanAChangeIsNotKept() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob")
        let viewers = f.service.viewers
        let before = viewers.generation
        try await write(f, "INSERT INTO profileActivity (userId, activityId) VALUES ('bob', 'chess')")
        // The read began before that commit: it may hold anyone's old lists.
        viewers.remember(FeedViewer(), of: "ann", readSince: before)
        #expect(viewers.viewer("ann") == nil)
        viewers.remember(FeedViewer(), of: "ann", readSince: viewers.generation)
        #expect(viewers.viewer("ann") != nil)
    }

    @Test func pastItsBudgetItStartsAfresh() throws {
        let f = try MeetingFixture()
        let viewers = f.service.viewers
        let big = FeedViewer(friendIds: (0..<1000).map { "friend-with-a-long-id-\($0)" })
        let fitting = FeedViewers.byteBudget / (big.bytes + 10)
        for n in 0..<fitting { viewers.remember(big, of: "user\(n)", readSince: viewers.generation) }
        #expect(viewers.viewer("user0") != nil)
        viewers.remember(big, of: "one more", readSince: viewers.generation)
        #expect(viewers.viewer("user0") == nil && viewers.viewer("user\(fitting - 1)") == nil)
        #expect(viewers.viewer("one more") != nil)
    }

    /// A kept viewer's first page reads nothing: a block another process committed shows only
    /// once the change tail brings it (then at once), never from the page's own read.
    @Test func aKeptViewersPageReadsNothingUntilTheTailBringsAChange() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "viewer")
        try await meeting(f, "ann's", by: "ann", in: 5)
        let request = FeedRequest(lat: Self.center.lat, lon: Self.center.lon)
        func titles() async throws -> [String] { try await f.service.feed(request, viewer: "viewer").items.map(\.title) }
        #expect(try await titles() == ["ann's"])
        let tail = try ChangeTail(database: f.database, pollInterval: .milliseconds(20), now: Date.init)
        f.service.follow(tail)
        let other = try AppDatabase(path: f.folder.url.appendingPathComponent("db.sqlite").path)
        try await other.writer.write { db in
            try db.execute(sql: "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('ann', 'viewer', ?)", arguments: [MeetingFixture.now])
        }
        #expect(try await titles() == ["ann's"])  // a read would have seen the block
        let running = Task { await tail.run() }
        defer { running.cancel() }
        let deadline = ContinuousClock.now + .seconds(5)
        while f.service.viewers.viewer("viewer") != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try await titles() == [])
    }

    @Test func anotherProcesssChangeIsForgottenWhenTheTailBringsIt() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob")
        let tail = try ChangeTail(database: f.database, pollInterval: .milliseconds(20), now: Date.init)
        f.service.follow(tail)
        let running = Task { await tail.run() }
        defer { running.cancel() }
        let viewers = f.service.viewers
        viewers.remember(FeedViewer(), of: "ann", readSince: viewers.generation)
        // Another process: its own connection to the file, unseen by this one's observers.
        let other = try AppDatabase(path: f.folder.url.appendingPathComponent("db.sqlite").path)
        try await other.writer.write { db in
            try db.execute(sql: "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('bob', 'ann', ?)", arguments: [MeetingFixture.now])
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while viewers.viewer("ann") != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(viewers.viewer("ann") == nil)
    }
}
