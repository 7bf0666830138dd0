import Foundation
import Testing
@testable import MeetCore

/// Who shares their way to a meeting, when, and when it stops, on a clock the tests move.
@Suite struct OnTheWayBoardTests {
    typealias Fixes = ArrivalEstimatorTests
    static let startsAt = Fixes.start + 3 * 3600
    static let destination = MeetingDestination(place: Fixes.place, startsAt: startsAt)

    /// A fix 1 km from the place, `seconds` after the test clock's zero.
    static func fix(at seconds: TimeInterval) throws -> PositionFix { try Fixes.fix(1000, at: seconds) }

    static func code(_ body: () throws -> Void) -> (code: String, retryAfter: String?)? {
        do {
            try body()
            return nil
        } catch let error as MeetError {
            return (error.code, error.arguments["retryAfter"])
        } catch {
            return ("\(error)", nil)
        }
    }

    @Test func sharingOpensTwoHoursBeforeTheStartAndEndsHalfAnHourAfter() throws {
        var board = OnTheWayBoard()
        let early = try Self.fix(at: 3600 - 90)
        let refused = Self.code { _ = try board.share(early, by: "ann", session: "s1", in: "m", heading: Self.destination) }
        #expect(refused?.code == "locationSharing.notOpen" && refused?.retryAfter == "90")
        #expect(board.isEmpty)

        let position = try board.share(try Self.fix(at: 3600), by: "ann", session: "s1", in: "m", heading: Self.destination)
        #expect(position.userId == "ann" && position.distanceMeters == 1000 && position.etaSeconds == 714)
        #expect(board.positions(in: "m") == [position])

        // Still on the way a little after the start; then the window closes and sharing ends.
        _ = try board.share(try Self.fix(at: 3 * 3600 + 1700), by: "ann", session: "s1", in: "m", heading: Self.destination)
        let stillOpen = board.expire(at: Self.startsAt + 1799)
        let closed = board.expire(at: Self.startsAt + 1800)
        #expect(stillOpen.isEmpty && closed == [.init(meetingId: "m", userId: "ann")])
        #expect(board.positions(in: "m").isEmpty)
        let late = Self.code { _ = try board.share(try Self.fix(at: 3 * 3600 + 1800), by: "ann", session: "s1", in: "m", heading: Self.destination) }
        #expect(late?.code == "locationSharing.notOpen" && late?.retryAfter == nil)
    }

    @Test func aStopEndsSharingAndTheNextPositionOptsInAgain() throws {
        var board = OnTheWayBoard()
        _ = try board.share(try Self.fix(at: 3600), by: "ann", session: "s1", in: "m", heading: Self.destination)
        _ = try board.share(try Self.fix(at: 3601), by: "bob", session: "s2", in: "m", heading: Self.destination)
        let stopped = board.stop("ann", in: "m")
        let again = board.stop("ann", in: "m")
        #expect(stopped && !again)
        #expect(board.positions(in: "m").map(\.userId) == ["bob"])
        _ = try board.share(try Self.fix(at: 3610), by: "ann", session: "s1", in: "m", heading: Self.destination)
        #expect(board.positions(in: "m").map(\.userId) == ["ann", "bob"])
        let bobs = board.stopAll(of: "bob")
        #expect(bobs == ["m"])
        #expect(board.positions(in: "m").map(\.userId) == ["ann"])
    }

    @Test func cancelledAndOnlineMeetingsAreRefused() throws {
        var board = OnTheWayBoard()
        let fix = try Self.fix(at: 3600)
        let cancelled = MeetingDestination(place: Fixes.place, startsAt: Self.startsAt, cancelled: true)
        #expect(Self.code { _ = try board.share(fix, by: "ann", session: "s", in: "m", heading: cancelled) }?.code == "meeting.cancelled")
        let online = MeetingDestination(place: nil, startsAt: Self.startsAt)
        #expect(Self.code { _ = try board.share(fix, by: "ann", session: "s", in: "m", heading: online) }?.code == "locationSharing.noPlace")
    }

    @Test func eachUserHasABurstThenOnePositionASecond() throws {
        var board = OnTheWayBoard()
        for _ in 0..<5 {
            _ = try board.share(try Self.fix(at: 3600), by: "ann", session: "s", in: "m", heading: Self.destination)
        }
        let refused = Self.code { _ = try board.share(try Self.fix(at: 3600), by: "ann", session: "s", in: "m", heading: Self.destination) }
        #expect(refused?.code == "locationSharing.rateLimited" && refused?.retryAfter == "1")
        // Another user is not held back; the first may go on a second later.
        _ = try board.share(try Self.fix(at: 3600), by: "bob", session: "t", in: "m", heading: Self.destination)
        _ = try board.share(try Self.fix(at: 3601), by: "ann", session: "s", in: "m", heading: Self.destination)
    }

    @Test func aLostConnectionEndsSharingAfterTheGraceUnlessThePhoneReportsAgain() throws {
        var board = OnTheWayBoard()
        _ = try board.share(try Self.fix(at: 3600), by: "ann", session: "s1", in: "m", heading: Self.destination)
        _ = try board.share(try Self.fix(at: 3600), by: "bob", session: "s2", in: "m", heading: Self.destination)
        board.sessionEnded("s1", at: Fixes.start + 3700)
        board.sessionEnded("s2", at: Fixes.start + 3700)
        // Bob's phone reconnects and reports within the grace: he stays.
        _ = try board.share(try Self.fix(at: 3730), by: "bob", session: "s3", in: "m", heading: Self.destination)
        let withinGrace = board.expire(at: Fixes.start + 3759)
        let afterGrace = board.expire(at: Fixes.start + 3760)
        #expect(withinGrace.isEmpty && afterGrace == [.init(meetingId: "m", userId: "ann")])
        #expect(board.positions(in: "m").map(\.userId) == ["bob"])
    }

    /// A position still on its way when its connection closed: lost from the close.
    @Test func aPositionFromAnEndedConnectionIsLostAtOnce() throws {
        var board = OnTheWayBoard()
        board.sessionEnded("s1", at: Fixes.start + 3600)
        _ = try board.share(try Self.fix(at: 3601), by: "ann", session: "s1", in: "m", heading: Self.destination)
        let ended = board.expire(at: Fixes.start + 3660)
        #expect(ended == [.init(meetingId: "m", userId: "ann")])
        #expect(board.isEmpty)
    }
}
