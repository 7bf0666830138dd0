import Foundation
import GRDB

extension MeetingService {
    /// How many results one feed query ranks at most; refine the filters to see others.
    public static let feedDepth = 1000

    /// A page of public, scheduled meetings matching `request`, ordered as asked.
    public func feed(_ request: FeedRequest, viewer viewerId: String) async throws -> FeedPage {
        let time = now()
        if let text = request.cursor {
            guard let cursor = FeedCursor(text) else {
                throw MeetError.invalidField("cursor", "field.invalid")
            }
            guard let snapshot = snapshots.snapshot(cursor.token, viewer: viewerId, now: time) else {
                throw MeetError("feed.cursorExpired", status: 410)
            }
            return try await database.pool.read { db in
                try page(of: snapshot, token: cursor.token, offset: cursor.offset, limit: request.limit, in: db)
            }
        }
        try request.validate()
        try await index.ready()
        // One read: the viewer's blocks (and friends and activities), then the first page.
        return try await database.pool.read { db in
            let viewer = try FeedViewer.fetch(viewerId, forRelevance: request.sort == .relevance, in: db)
            let ranked = index.rank(request, from: (request.from ?? time).timeIntervalSince1970, viewer: viewer, depth: Self.feedDepth)
            let snapshot = FeedSnapshots.Snapshot(
                viewerId: viewerId, created: time, numbers: ranked.map(\.number), distances: ranked.map(\.distanceKm))
            // Only a list longer than one page needs remembering.
            let token = snapshot.numbers.count > request.limit ? snapshots.store(snapshot) : ""
            return try page(of: snapshot, token: token, offset: 0, limit: request.limit, in: db)
        }
    }

    /// `limit` meetings of `snapshot` from `offset`, read as they are now: meetings cancelled
    /// or made private since the snapshot drop out, the rest keep their place.
    private func page(of snapshot: FeedSnapshots.Snapshot, token: String, offset: Int, limit: Int, in db: Database) throws -> FeedPage {
        let range = min(offset, snapshot.numbers.count)..<min(offset + limit, snapshot.numbers.count)
        let numbers = "[" + snapshot.numbers[range].map(String.init).joined(separator: ",") + "]"
        // Cached statements: the same two queries for every page.
        let records = try MeetingRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM meeting WHERE number IN (SELECT value FROM json_each(?))"), arguments: [numbers])
        let byNumber = Dictionary(uniqueKeysWithValues: records.map { ($0.number!, $0) })
        var activities: [Int64: [String]] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT m.number, a.activityId FROM meeting m JOIN meetingActivity a ON a.meetingId = m.id
            WHERE m.number IN (SELECT value FROM json_each(?)) ORDER BY a.activityId
            """), arguments: [numbers])
        while let row = try rows.next() {
            activities[row[0], default: []].append(row[1])
        }
        let items = zip(snapshot.numbers[range], snapshot.distances[range]).compactMap { number, distance -> Meeting? in
            guard let record = byNumber[number], !record.isCancelled, record.visibility == .public else { return nil }
            return record.meeting(activityIds: activities[number] ?? [], distanceKm: distance.isNaN ? nil : distance)
        }
        let next = offset + limit
        return FeedPage(items: items, nextCursor: next < snapshot.numbers.count ? FeedCursor(token: token, offset: next).text : nil)
    }
}
