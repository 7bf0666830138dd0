import Foundation
import GRDB

extension MeetingService {
    /// Puts back the feed cursors saved by the last graceful stop, so that clients scrolling
    /// through the feed carry on after a restart; the saved rows are removed. Call before
    /// serving.
    public func restoreFeedCursors() throws {
        let saved = try database.writer.write { db in try FeedCursorStore.take(in: db) }
        snapshots.restore(saved, now: now())
    }

    /// Saves the live feed cursors for the next start: call on a graceful stop, once no more
    /// feed requests come. A crash loses them; their clients start again from the first page.
    public func saveFeedCursors() async throws {
        let live = snapshots.live(now: now())
        try await database.writer.write { db in try FeedCursorStore.save(live, in: db) }
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

/// The `feedSnapshot` table (migrations 307, 309): the ranked lists behind feed cursors
/// between a graceful stop and the next start, each in feed order as its base meeting number
/// and little-endian 32-bit offsets from it, with the point its distances are measured from
/// and, for a list with more to come, its first page's request as JSON.
enum FeedCursorStore {
    static func save(_ snapshots: [String: FeedSnapshots.Snapshot], in db: Database) throws {
        try db.execute(sql: "DELETE FROM feedSnapshot")
        let insert = try db.makeStatement(sql: """
            INSERT INTO feedSnapshot (token, viewerId, createdAt, lat, lon, base, offsets, deeper) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let encoder = JSONEncoder()
        for (token, snapshot) in snapshots {
            // Stored sorted: the keys of an unordered tail would quadruple the row.
            var list = snapshot.list
            list.sortTail()
            try insert.execute(arguments: [
                token, snapshot.viewerId, snapshot.created.timeIntervalSince1970,
                snapshot.center?.lat, snapshot.center?.lon, list.base, bytes(list.offsets),
                try snapshot.deeper.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
            ])
        }
    }

    /// Every saved snapshot, removed from the table; rows that do not decode are dropped.
    static func take(in db: Database) throws -> [String: FeedSnapshots.Snapshot] {
        var result: [String: FeedSnapshots.Snapshot] = [:]
        let decoder = JSONDecoder()
        let rows = try Row.fetchCursor(db, sql: "SELECT token, viewerId, createdAt, lat, lon, base, offsets, deeper FROM feedSnapshot")
        while let row = try rows.next() {
            let (lat, lon): (Double?, Double?) = (row["lat"], row["lon"])
            let deeperJSON: String? = row["deeper"]
            let deeper = deeperJSON.flatMap { try? decoder.decode(FeedRequest.self, from: Data($0.utf8)) }
            guard let offsets = offsets(row["offsets"]), (lat == nil) == (lon == nil), (deeperJSON == nil) == (deeper == nil) else { continue }
            result[row["token"]] = FeedSnapshots.Snapshot(
                viewerId: row["viewerId"], created: Date(timeIntervalSince1970: row["createdAt"]),
                center: lat.flatMap { lat in lon.map { Coordinate(lat: lat, lon: $0) } },
                list: FeedList(base: row["base"], offsets: offsets), deeper: deeper)
        }
        try db.execute(sql: "DELETE FROM feedSnapshot")
        return result
    }

    private static func bytes(_ values: [UInt32]) -> Data {
        var data = Data(capacity: values.count * 4)
        for value in values { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    private static func offsets(_ data: Data?) -> [UInt32]? {
        guard let data, data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
        }
    }
}
