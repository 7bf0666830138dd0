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
        let snapshot = try await database.pool.read { db in
            var candidates = try FeedCandidates.fetch(request, viewer: viewerId, from: request.from ?? time, limit: Self.feedDepth, in: db)
            try rank(&candidates, by: request, viewer: viewerId, at: time, in: db)
            var distances: [Int64: Double] = [:]
            for candidate in candidates { distances[candidate.number] = candidate.distanceKm }
            return FeedSnapshots.Snapshot(viewerId: viewerId, created: time, numbers: candidates.map(\.number), distances: distances)
        }
        // Only a list longer than one page needs remembering.
        let token = snapshot.numbers.count > request.limit ? snapshots.store(snapshot) : ""
        return try await page(of: snapshot, token: token, offset: 0, limit: request.limit)
    }

    private func rank(_ candidates: inout [FeedCandidate], by request: FeedRequest, viewer viewerId: String, at time: Date, in db: Database) throws {
        // Candidates arrive soonest first; every order below breaks ties the same way.
        let position = Dictionary(uniqueKeysWithValues: candidates.enumerated().map { ($1.number, $0) })
        func byKey<Key: Comparable>(_ key: (FeedCandidate) -> Key) {
            candidates.sort { lhs, rhs in
                let (l, r) = (key(lhs), key(rhs))
                return l != r ? l < r : position[lhs.number]! < position[rhs.number]!
            }
        }
        switch request.sort {
        case .date:
            break
        case .distance:
            byKey { $0.distanceKm ?? .infinity }
        case .popularity:
            byKey { -$0.memberCount }
        case .relevance:
            let relevance = Relevance(
                now: time, signals: try PersonalSignals.fetch(for: viewerId, candidates: candidates.map(\.id), in: db),
                hasCenter: request.circle != nil)
            let scores = Dictionary(uniqueKeysWithValues: candidates.map { ($0.number, relevance.score($0)) })
            byKey { -scores[$0.number]! }
        }
    }

    /// `limit` meetings of `snapshot` from `offset`, read as they are now: meetings cancelled
    /// or made private since the snapshot drop out, the rest keep their place.
    private func page(of snapshot: FeedSnapshots.Snapshot, token: String, offset: Int, limit: Int) async throws -> FeedPage {
        let numbers = Array(snapshot.numbers.dropFirst(offset).prefix(limit))
        let items = try await database.pool.read { db in
            let records = try MeetingRecord.fetchAll(db, keys: numbers)
            let byNumber = Dictionary(uniqueKeysWithValues: records.map { ($0.number!, $0) })
            let activities = try FeedActivities.fetch(records.map(\.id), in: db)
            return numbers.compactMap { number -> Meeting? in
                guard let record = byNumber[number], !record.isCancelled, record.visibility == .public else { return nil }
                return record.meeting(activityIds: activities[record.id] ?? [], distanceKm: snapshot.distances[number])
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
        let rows = try Row.fetchCursor(db, sql: """
            SELECT meetingId, activityId FROM meetingActivity
            WHERE meetingId IN (SELECT value FROM json_each(?)) ORDER BY meetingId, activityId
            """, arguments: [FeedCandidates.jsonArray(meetingIds)])
        while let row = try rows.next() {
            result[row["meetingId"], default: []].append(row["activityId"])
        }
        return result
    }
}
