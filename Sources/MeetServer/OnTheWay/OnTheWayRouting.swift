import Foundation
import MeetCore
import Stomp

/// The broker's side of members on the way: `SEND /app/meetings.{id}.location` (membership
/// already checked by the authorizer, as for every SEND to a meeting's rooms) and the snapshot
/// that starts a `/topic/meetings.{id}.locations` subscription.
struct OnTheWayRouting: Sendable {
    let tracker: OnTheWayTracker
    let database: AppDatabase

    /// One SEND from a member: a position (checked, then placed against the meeting as it is
    /// now) or a stop. Completes once the subscribers have been told, so the RECEIPT follows.
    /// - Throws: a ``StompRefusal`` for a body that is no request or a sender who left
    ///   meanwhile; `MeetError`s of ``PositionFix``, ``MeetingDestination`` and
    ///   ``OnTheWayBoard/share(_:by:session:in:heading:)``.
    func receive(_ body: Data, from userId: String, session: String, in meetingId: String) async throws {
        switch try ChatRoomApplication.decode(OnTheWayRequest.self, body, shape: OnTheWayRequest.shape) {
        case .stop:
            try await tracker.stop(userId, in: meetingId).get()
        case let .position(lat, lon, accuracy, heading, speed):
            let fix = try PositionFix(lat: lat, lon: lon, accuracy: accuracy, heading: heading, speed: speed, at: tracker.now())
            // Taken before the read: a departure announced after it refuses the share (see
            // ``OnTheWayTracker/departureMark``), one announced before it made the read refuse.
            let mark = tracker.departureMark
            let destination = try await MeetingDestination.read(meetingId, for: userId, in: database)
            try await tracker.share(fix, by: userId, session: session, in: meetingId, heading: destination, unlessDepartedAfter: mark).get()
        }
    }

    /// The current positions for a new subscriber of a meeting's `.locations`, or nil for any
    /// other destination.
    func catchUp(destination: String) -> StompCatchUp? {
        guard let room = MeetingTopic(destination: destination), room.room == .locations else { return nil }
        return tracker.snapshot(of: room.meetingId)
    }
}
