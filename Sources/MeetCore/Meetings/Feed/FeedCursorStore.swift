import Foundation
import GRDB

extension MeetingService {
    /// Puts back the feed cursors saved by the last graceful stop, so that clients scrolling
    /// through the feed carry on after a restart; the saved rows are removed. Call before
    /// serving.
    public func restoreFeedCursors() throws {
        let saved = try database.pool.write { db in try FeedCursorStore.take(in: db) }
        snapshots.restore(saved, now: now())
    }

    /// Saves the live feed cursors for the next start: call on a graceful stop, once no more
    /// feed requests come. A crash loses them; their clients start again from the first page.
    public func saveFeedCursors() async throws {
        let live = snapshots.live(now: now())
        try await database.pool.write { db in try FeedCursorStore.save(live, in: db) }
    }

    /// Loads the feed's in-memory index now rather than on the first feed query.
    /// - Returns: how many meetings it holds and roughly how many bytes.
    @discardableResult
    public func loadFeedIndex() async throws -> (meetings: Int, bytes: Int) {
        try await index.ready()
        let state = index.state
        return (state.count, state.footprintBytes)
    }
}

/// The `feedSnapshot` table: the ranked lists behind feed cursors between a graceful stop
/// and the next start. Numbers and distances are stored as little-endian 64-bit arrays.
enum FeedCursorStore {
    static func save(_ snapshots: [String: FeedSnapshots.Snapshot], in db: Database) throws {
        try db.execute(sql: "DELETE FROM feedSnapshot")
        let insert = try db.makeStatement(sql: """
            INSERT INTO feedSnapshot (token, viewerId, createdAt, numbers, distances) VALUES (?, ?, ?, ?, ?)
            """)
        for (token, snapshot) in snapshots {
            try insert.execute(arguments: [
                token, snapshot.viewerId, snapshot.created.timeIntervalSince1970,
                bytes(snapshot.numbers.map { UInt64(bitPattern: $0) }), bytes(snapshot.distances.map(\.bitPattern)),
            ])
        }
    }

    /// Every saved snapshot, removed from the table; rows that do not decode are dropped.
    static func take(in db: Database) throws -> [String: FeedSnapshots.Snapshot] {
        var result: [String: FeedSnapshots.Snapshot] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT token, viewerId, createdAt, numbers, distances FROM feedSnapshot")
        while let row = try rows.next() {
            guard let numbers = values(row["numbers"]), let distances = values(row["distances"]),
                  numbers.count == distances.count else { continue }
            result[row["token"]] = FeedSnapshots.Snapshot(
                viewerId: row["viewerId"], created: Date(timeIntervalSince1970: row["createdAt"]),
                numbers: numbers.map { Int64(bitPattern: $0) }, distances: distances.map(Double.init(bitPattern:)))
        }
        try db.execute(sql: "DELETE FROM feedSnapshot")
        return result
    }

    private static func bytes(_ values: [UInt64]) -> Data {
        var data = Data(capacity: values.count * 8)
        for value in values { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    private static func values(_ data: Data?) -> [UInt64]? {
        guard let data, data.count % 8 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0..<data.count / 8).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
        }
    }
}
