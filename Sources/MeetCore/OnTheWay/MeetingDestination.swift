import Foundation
import GRDB

/// What members on the way need to know of a meeting: its place, its start and whether it is
/// cancelled, read afresh for each position so that a moved place or time counts at once.
public struct MeetingDestination: Sendable, Equatable {
    /// Where it happens; nil for an online meeting, which nobody travels to.
    public var place: Coordinate?
    /// When the meeting starts; the sharing window is counted from it.
    public var startsAt: Date
    /// Whether the meeting is cancelled; nobody may share their way to it then.
    public var cancelled: Bool

    /// Creates a destination (tests; the server reads it with ``read(_:in:)``).
    public init(place: Coordinate?, startsAt: Date, cancelled: Bool = false) {
        self.place = place
        self.startsAt = startsAt
        self.cancelled = cancelled
    }

    /// The meeting's destination. Membership is the caller's to check (the broker's authorizer
    /// does, for every SEND to a meeting).
    /// - Throws: `meeting.notFound` when there is no such meeting.
    public static func read(_ meetingId: String, in database: AppDatabase) async throws -> MeetingDestination {
        try await database.quickRead { db in
            // Cached: every position a member sends reads it.
            let statement = try db.cachedStatement(sql: "SELECT lat, lon, online, startsAt, cancelledAt FROM meeting WHERE id = ?")
            guard let row = try Row.fetchOne(statement, arguments: [meetingId]) else { throw MeetError.meetingNotFound }
            let lat: Double? = row["lat"], lon: Double? = row["lon"], online: Bool = row["online"]
            let place = online ? nil : lat.flatMap { lat in lon.map { Coordinate(lat: lat, lon: $0) } }
            return MeetingDestination(
                place: place, startsAt: Date(timeIntervalSince1970: row["startsAt"]), cancelled: (row["cancelledAt"] as Double?) != nil)
        }
    }
}
