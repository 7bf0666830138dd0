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
            return try await page(of: snapshot, token: cursor.token, offset: cursor.offset, limit: request.limit)
        }
        try request.validate()
        try await index.ready()
        let viewer = try await database.pool.read { db in
            try FeedViewer.fetch(viewerId, forRelevance: request.sort == .relevance, in: db)
        }
        let ranked = index.rank(request, from: (request.from ?? time).timeIntervalSince1970, viewer: viewer, depth: Self.feedDepth)
        let snapshot = FeedSnapshots.Snapshot(
            viewerId: viewerId, created: time, numbers: ranked.map(\.number), distances: ranked.map(\.distanceKm))
        // Only a list longer than one page needs remembering.
        let token = snapshot.numbers.count > request.limit ? snapshots.store(snapshot) : ""
        return try await page(of: snapshot, token: token, offset: 0, limit: request.limit)
    }

    /// `limit` meetings of `snapshot` from `offset`, read as they are now: meetings cancelled
    /// or made private since the snapshot drop out, the rest keep their place.
    private func page(of snapshot: FeedSnapshots.Snapshot, token: String, offset: Int, limit: Int) async throws -> FeedPage {
        let range = min(offset, snapshot.numbers.count)..<min(offset + limit, snapshot.numbers.count)
        let numbers = Array(snapshot.numbers[range])
        let distances = Dictionary(uniqueKeysWithValues: zip(numbers, snapshot.distances[range]))
        let items = try await database.pool.read { db in
            let records = try MeetingRecord.fetchAll(db, keys: numbers)
            let byNumber = Dictionary(uniqueKeysWithValues: records.map { ($0.number!, $0) })
            let activities = try FeedActivities.fetch(records.map(\.id), in: db)
            return numbers.compactMap { number -> Meeting? in
                guard let record = byNumber[number], !record.isCancelled, record.visibility == .public else { return nil }
                let distance = distances[number]!
                return record.meeting(activityIds: activities[record.id] ?? [], distanceKm: distance.isNaN ? nil : distance)
            }
        }
        let next = offset + limit
        return FeedPage(items: items, nextCursor: next < snapshot.numbers.count ? FeedCursor(token: token, offset: next).text : nil)
    }
}

/// The activities of a set of meetings, in one query.
enum FeedActivities {
    static func fetch(_ meetingIds: [String], in db: Database) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let rows = try Row.fetchCursor(db, SQLRequest(literal: """
            SELECT meetingId, activityId FROM meetingActivity WHERE meetingId IN \(meetingIds) ORDER BY meetingId, activityId
            """))
        while let row = try rows.next() {
            result[row["meetingId"], default: []].append(row["activityId"])
        }
        return result
    }
}
