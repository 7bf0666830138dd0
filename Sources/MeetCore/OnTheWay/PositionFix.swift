import Foundation

/// One position a member's phone reports on the way to a meeting
/// (`/app/meetings.{id}.location`, docs/chat.md "Members on the way"): where, how sure, and,
/// when the phone knows them, which way and how fast. Kept in memory only, never stored.
public struct PositionFix: Sendable, Equatable {
    /// Where the phone is (latitude and longitude, checked like `PUT /me/location`).
    public var coordinate: Coordinate
    /// The radius of the phone's confidence circle, in metres.
    public var accuracy: Double
    /// Degrees clockwise from true north, from 0 to 360.
    public var heading: Double?
    /// Metres per second over the ground.
    public var speed: Double?
    /// When the server received it (its clock, not the phone's).
    public var at: Date

    /// Vaguer than this (metres), a position is no use on a map.
    static let accuracies = 0.0...10_000
    /// Degrees; 360 is north again.
    static let headings = 0.0...360
    /// Faster than this (metres per second, 360 km/h), a reading is a glitch.
    static let speeds = 0.0...100

    /// Checks what a client sent.
    /// - Throws: `location.invalid` (422) naming every field out of range, as for `PUT /me/location`.
    public init(lat: Double, lon: Double, accuracy: Double, heading: Double? = nil, speed: Double? = nil, at: Date) throws {
        var problems = LocationService.problems(lat: lat, lon: lon)
        func check(_ field: String, _ value: Double?, in range: ClosedRange<Double>) {
            guard let value, !range.contains(value) else { return }
            problems.append(.init(field: field, code: "field.outOfRange",
                                  arguments: ["minimum": String(Int(range.lowerBound)), "maximum": String(Int(range.upperBound))]))
        }
        check("accuracy", accuracy, in: Self.accuracies)
        check("heading", heading, in: Self.headings)
        check("speed", speed, in: Self.speeds)
        guard problems.isEmpty else { throw MeetError("location.invalid", status: 422, fieldProblems: problems) }
        self.coordinate = Coordinate(lat: lat, lon: lon)
        self.accuracy = accuracy
        self.heading = heading
        self.speed = speed
        self.at = at
    }
}
