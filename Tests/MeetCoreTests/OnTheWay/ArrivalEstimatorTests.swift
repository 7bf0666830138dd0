import Foundation
import Testing
@testable import MeetCore

/// Distance and ETA of a member on the way, on a clock the tests move by hand.
@Suite struct ArrivalEstimatorTests {
    /// Kyiv's Maidan, the meeting's place.
    static let place = Coordinate(lat: 50.4501, lon: 30.5234)
    static let start = Date(timeIntervalSince1970: 1_900_000_000)
    /// Metres per degree of latitude on the haversine's sphere.
    static let metresPerDegree = Coordinate.earthRadiusKm * 1000 * .pi / 180

    /// A fix `metres` due north of the place, `seconds` after the start.
    static func fix(_ metres: Double, at seconds: TimeInterval, speed: Double? = nil, accuracy: Double = 5) throws -> PositionFix {
        try PositionFix(lat: place.lat + metres / metresPerDegree, lon: place.lon, accuracy: accuracy, speed: speed,
                        at: start + seconds)
    }

    @Test func withoutASpeedTheETAIsAtWalkingPace() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        let estimate = estimator.update(with: try Self.fix(1400, at: 0))
        #expect(abs(estimate.distanceMeters - 1400) < 1)
        #expect(abs(estimate.etaSeconds - 1000) < 1)
    }

    @Test func thePhonesSpeedGivesTheETA() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        let estimate = estimator.update(with: try Self.fix(1400, at: 0, speed: 10))
        #expect(abs(estimate.etaSeconds - 140) < 1)
    }

    @Test func standingStillCountsAsWalking() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        let estimate = estimator.update(with: try Self.fix(1400, at: 0, speed: 0.1))
        #expect(abs(estimate.etaSeconds - 1000) < 1)
    }

    /// Steady walking: each fix's ETA is the last one counted down, with no jump.
    @Test func aSteadyPaceCountsDownSmoothly() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        var last = estimator.update(with: try Self.fix(1400, at: 0, speed: 1.4)).etaSeconds
        for step in 1...10 {
            let seconds = Double(step) * 10
            let eta = estimator.update(with: try Self.fix(1400 - 1.4 * seconds, at: seconds, speed: 1.4)).etaSeconds
            #expect(abs(eta - (last - 10)) < 0.5, "step \(step): \(eta) after \(last)")
            last = eta
        }
    }

    /// Jumping on a bus: the ETA moves towards the new estimate, not onto it, and gets there.
    @Test func aSuddenSpeedUpMovesTheETAGradually() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        let walking = estimator.update(with: try Self.fix(5000, at: 0, speed: 1.4)).etaSeconds
        let first = estimator.update(with: try Self.fix(4986, at: 10, speed: 14)).etaSeconds
        let raw = 4986 / 14.0
        #expect(first < walking - 10 && first > raw, "\(first) should lie between \(raw) and \(walking - 10)")
        var eta = first
        var metres = 4986.0
        for step in 1...30 {
            metres -= 140
            eta = estimator.update(with: try Self.fix(metres, at: 10 + Double(step) * 10, speed: 14)).etaSeconds
        }
        #expect(abs(eta - metres / 14) < 0.05 * metres / 14, "settles on the bus's pace: \(eta) vs \(metres / 14)")
    }

    /// Without the phone's speed, the way covered between fixes gives it; GPS jitter within the
    /// fixes' accuracy is standing still.
    @Test func theWayCoveredGivesTheSpeedAndJitterDoesNot() throws {
        var moving = ArrivalEstimator(place: Self.place)
        _ = moving.update(with: try Self.fix(2000, at: 0))
        // 100 m in 10 s: 10 m/s, so 190 s to go, blended into the walking countdown.
        let countdown = 2000 / 1.4 - 10
        let expected = countdown + (1 - exp(-10.0 / 30)) * (190 - countdown)
        let estimate = moving.update(with: try Self.fix(1900, at: 10))
        #expect(abs(estimate.etaSeconds - expected) < 1)
        var jittering = ArrivalEstimator(place: Self.place)
        _ = jittering.update(with: try Self.fix(2000, at: 0, accuracy: 30))
        let still = jittering.update(with: try Self.fix(2010, at: 5, accuracy: 30)).etaSeconds
        #expect(abs(still - 2010 / 1.4) < 20)
    }

    @Test func atThePlaceTheETAIsZeroAtOnce() throws {
        var estimator = ArrivalEstimator(place: Self.place)
        _ = estimator.update(with: try Self.fix(600, at: 0))
        let there = estimator.update(with: try Self.fix(20, at: 5))
        #expect(there.etaSeconds == 0 && abs(there.distanceMeters - 20) < 1)
    }

    @Test func positionsOutOfRangeAreRefusedByField() {
        do {
            _ = try PositionFix(lat: 91, lon: 30, accuracy: -1, heading: 400, speed: 1000, at: Self.start)
            Issue.record("accepted")
        } catch let error as MeetError {
            #expect(error.code == "location.invalid" && error.status == 422)
            #expect(error.fieldProblems.map(\.field) == ["lat", "accuracy", "heading", "speed"])
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: Never.self) { try PositionFix(lat: -90, lon: 180, accuracy: 0, heading: 360, speed: 0, at: Self.start) }
    }
}
