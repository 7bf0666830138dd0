import Foundation
import MeetCore
import NIOPosix
import Stomp
import Testing
@testable import MeetServer

/// A position's membership is checked by a read before the tracker takes it; a member who
/// leaves in between must not be put back on the map by it (``OnTheWayTracker/departureMark``).
@Suite struct OnTheWayDepartureTests {
    @Test func aPositionCheckedBeforeADepartureIsRefusedAfterIt() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let tracker = OnTheWayTracker(policy: LocationSharingPolicy(), eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
                                      now: { now })
        let destination = MeetingDestination(place: Coordinate(lat: 49.84, lon: 24.03), startsAt: now.addingTimeInterval(600))
        let fix = try PositionFix(lat: 49.80, lon: 24.00, accuracy: 10, at: now)
        func share(_ userId: String, in meetingId: String, checkedAt mark: UInt64) async throws {
            try await tracker.share(fix, by: userId, session: userId, in: meetingId, heading: destination, unlessDepartedAfter: mark).get()
        }

        let checked = tracker.departureMark
        tracker.depart("bob", from: "m1")
        await #expect(throws: StompRefusal.self) { try await share("bob", in: "m1", checkedAt: checked) }
        // Others of the meeting, and bob's other meetings, are not touched by his departure.
        try await share("cy", in: "m1", checkedAt: checked)
        try await share("bob", in: "m2", checkedAt: checked)
        // A read after the departure (it found bob a member again: he rejoined) lets him share.
        try await share("bob", in: "m1", checkedAt: tracker.departureMark)
        let shown = try await tracker.snapshot(of: "m1").page(0).map { message in
            (try JSONSerialization.jsonObject(with: Data(message.body.readableBytesView)) as? [String: Any])?["userId"] as? String
        }
        #expect(shown == ["bob", "cy"])
    }
}
