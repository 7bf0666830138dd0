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

    /// Creates a destination (tests; the server reads it with ``read(_:for:in:)``).
    public init(place: Coordinate?, startsAt: Date, cancelled: Bool = false) {
        self.place = place
        self.startsAt = startsAt
        self.cancelled = cancelled
    }

    /// The meeting's destination, for `userId`, who must still be a member (the organizer
    /// included). The broker's authorizer checked that for the SEND, but a leave may have
    /// committed since; read here, in the same snapshot as the place, it closes that window
    /// together with ``OnTheWayTracker``'s departure marks.
    /// - Throws: `meeting.notFound` when there is no such meeting, `meeting.notMember` when
    ///   `userId` is not (or no longer) a member.
    public static func read(_ meetingId: String, for userId: String, in database: AppDatabase) async throws -> MeetingDestination {
        try await database.quickRead { db in
            // Cached: every position a member sends reads it.
            let statement = try db.cachedStatement(sql: """
                SELECT lat, lon, online, startsAt, cancelledAt,
                       EXISTS (SELECT 1 FROM meetingMember WHERE meetingId = meeting.id AND userId = ?) AS isMember
                FROM meeting WHERE id = ?
                """)
            guard let row = try Row.fetchOne(statement, arguments: [userId, meetingId]) else { throw MeetError.meetingNotFound }
            guard row["isMember"] as Bool else { throw MeetError.notMember }
            let lat: Double? = row["lat"], lon: Double? = row["lon"], online: Bool = row["online"]
            let place = online ? nil : lat.flatMap { lat in lon.map { Coordinate(lat: lat, lon: $0) } }
            return MeetingDestination(
                place: place, startsAt: Date(timeIntervalSince1970: row["startsAt"]), cancelled: (row["cancelledAt"] as Double?) != nil)
        }
    }
}
