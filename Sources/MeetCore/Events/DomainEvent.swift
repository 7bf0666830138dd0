import Foundation
import GRDB

/// Something that happened in the domain and that other parts of the app react to
/// (a meeting was edited, someone was invited, a friend request arrived...).
///
/// Record it inside the write transaction that makes the change, so that the event exists
/// exactly when the change does:
///
/// ```swift
/// try await database.writer.write { db in
///     try meeting.update(db)
///     try DomainEvent.meetingEdited(meeting, fields: ["title"], recipients: members).record(in: db, at: now)
/// }
/// ```
///
/// Consumers read the log in order with ``DomainEvents/pending(for:limit:in:)``.
public struct DomainEvent: Sendable, Equatable {
    /// What happened, as a stable dotted name (`meeting.edited`). Areas add their kinds as
    /// static members in an extension.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        /// The dotted name, such as `meeting.edited`.
        public var rawValue: String
        /// Wraps a dotted name; areas make their kinds with it.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// What happened.
    public var kind: Kind
    /// The facts a consumer needs without querying again, as a JSON object.
    public var payload: Data

    /// An event whose payload is `payload` encoded as JSON (dates as RFC 3339).
    public init(_ kind: Kind, payload: some Encodable) throws {
        self.kind = kind
        self.payload = try DomainEvent.encoder.encode(payload)
    }

    /// Appends the event to the log in `db`'s current transaction.
    public func record(in db: Database, at time: Date) throws {
        try db.execute(
            sql: "INSERT INTO event (kind, payload, createdAt) VALUES (?, ?, ?)",
            arguments: [kind.rawValue, String(decoding: payload, as: UTF8.self), time.timeIntervalSince1970])
        // The transactional outbox: the inbox entries and pushes the event makes are written
        // in the same transaction, so they exist exactly when the change does.
        try NotificationOutbox.enqueue(self, in: db, at: time)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

/// An event as read back from the log, with its position.
public struct StoredEvent: Sendable, Equatable {
    /// Grows with every recorded event; consumers remember the last one they handled.
    public var id: Int64
    /// What happened.
    public var kind: DomainEvent.Kind
    /// The facts recorded with it, as a JSON object.
    public var payload: Data
    /// When it was recorded.
    public var createdAt: Date
}

/// Reading the event log: each named consumer keeps its own marker, so chat, push and mail
/// each see every event once, in order, and resume after a restart where they stopped.
///
/// To be woken when events arrive, observe the `event` table (GRDB's
/// `DatabaseRegionObservation(tracking: Table("event"))`).
public enum DomainEvents {
    /// The events after `consumer`'s marker, oldest first.
    public static func pending(for consumer: String, limit: Int = 100, in db: Database) throws -> [StoredEvent] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, kind, payload, createdAt FROM event
            WHERE id > COALESCE((SELECT lastEventId FROM eventConsumer WHERE name = ?), 0)
            ORDER BY id LIMIT ?
            """, arguments: [consumer, limit])
        return rows.map { row in
            StoredEvent(
                id: row["id"], kind: .init(rawValue: row["kind"]),
                payload: Data((row["payload"] as String).utf8),
                createdAt: Date(timeIntervalSince1970: row["createdAt"]))
        }
    }

    /// Moves `consumer`'s marker to `eventId` (never backwards).
    public static func markConsumed(_ consumer: String, through eventId: Int64, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO eventConsumer (name, lastEventId) VALUES (?, ?)
            ON CONFLICT (name) DO UPDATE SET lastEventId = max(lastEventId, excluded.lastEventId)
            """, arguments: [consumer, eventId])
    }
}
