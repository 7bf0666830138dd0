import Foundation
import MeetCore
import NIOCore
import Stomp
import Synchronization
import Testing

/// Members on the way over real STOMP connections against the real server, on a clock the
/// tests move: the window, members and outsiders, stops, leaving, a lost connection.
@Suite(.timeLimit(.minutes(1))) struct OnTheWayTests {
    typealias Rooms = MeetingRoomSubscriptionTests
    typealias Chat = ChatRoomTests

    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }

    /// Every frame a client receives, read by a task of its own, so that a test waits for the
    /// one it expects with a deadline (never an unbounded read).
    final class Frames: Sendable {
        let client: StompClient
        /// A class, so that the reading task can hold it.
        private final class Received: Sendable {
            let frames = Mutex<[StompFrame]>([])
        }

        private let received = Received()
        private let reader = Mutex<Task<Void, Never>?>(nil)

        init(_ client: StompClient) {
            self.client = client
            let task = Task { [received] in
                while let frame = try? await client.next() { received.frames.withLock { $0.append(frame) } }
            }
            reader.withLock { $0 = task }
        }

        /// The first frame `matches` accepts, taken out; throws once `seconds` have passed.
        func take(within seconds: Double = 10, _ what: String, _ matches: (StompFrame) -> Bool) async throws -> StompFrame {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while true {
                if let frame = received.frames.withLock({ frames in frames.firstIndex(where: matches).map { frames.remove(at: $0) } }) {
                    return frame
                }
                guard ContinuousClock.now < deadline else {
                    throw TimedOut(description: "no \(what) within \(seconds) s; got \(received.frames.withLock { $0.map(\.command) })")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        /// The answer to a frame sent with `receipt`: its RECEIPT or its refusal.
        func answer(to receipt: String) async throws -> StompFrame {
            try await take("answer to \(receipt)") { $0.headers["receipt-id"] == receipt }
        }

        /// The next update of a meeting's members on the way.
        func location(_ meeting: String, within seconds: Double = 10) async throws -> [String: Any] {
            Chat.json(try await take(within: seconds, "location") { $0.headers["destination"] == "/topic/meetings.\(meeting).locations" })
        }

        func close() async {
            reader.withLock { $0?.cancel() }
            await client.close()
        }
    }

    static func connect(_ port: Int, _ user: SignedInUser) async throws -> Frames {
        Frames(try await Rooms.connect(port: port, token: user.token))
    }

    static func subscribe(_ frames: Frames, to meeting: String) async throws -> StompFrame {
        let destination = "/topic/meetings.\(meeting).locations"
        try await frames.client.send(StompFrame(.subscribe, headers: ["id": destination, "destination": destination, "receipt": destination]))
        return try await frames.answer(to: destination)
    }

    static func send(_ frames: Frames, _ body: [String: any Sendable], to meeting: String, receipt: String) async throws -> StompFrame {
        let data = try JSONSerialization.data(withJSONObject: body)
        try await frames.client.send(StompFrame(
            .send, headers: ["destination": "/app/meetings.\(meeting).location", "receipt": receipt, "content-type": "application/json"],
            body: ByteBuffer(data: data)))
        return try await frames.answer(to: receipt)
    }

    /// `metres` due north of `place`, as a phone would send it.
    static func position(_ metres: Double, from place: Coordinate) -> [String: any Sendable] {
        ["lat": place.lat + metres / ArrivalEstimatorMetres.perDegree, "lon": place.lon, "accuracy": 5.0]
    }

    /// A meeting starting `hours` from now, and its geocoded place.
    static func meeting(_ server: TestServer, by user: SignedInUser, startingIn hours: Double) async throws -> (String, Coordinate) {
        let created = try await server.send(.post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(
            ["startsAt": MeetingEndToEndTests.time(hours: hours)]), token: user.token)
        let place = try #require(created.json["place"] as? [String: Any])
        return (try #require(created.string("id")), Coordinate(lat: try #require(place["lat"] as? Double), lon: try #require(place["lon"] as? Double)))
    }

    @Test func membersShareInsideTheWindowUntilTheyStopOrItCloses() async throws {
        let clock = SkewedClock()
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(now: { [clock] in clock.now }, stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cat = try await server.signedInUser()
            let (meeting, place) = try await Self.meeting(server, by: ann, startingIn: 3)
            try await Chat.join(server, bob, meeting)
            let organizer = try await Self.connect(port, ann)
            let member = try await Self.connect(port, bob)
            let outsider = try await Self.connect(port, cat)
            #expect(try await Self.subscribe(organizer, to: meeting).command == .receipt)

            // Three hours before the start is too early.
            let early = try await Self.send(member, Self.position(1000, from: place), to: meeting, receipt: "early")
            #expect(early.headers["code"] == "locationSharing.notOpen", "\(early.text)")

            // An hour later the window is open: the first position opts Bob in.
            clock.setAhead(by: 3600 + 60)
            #expect(try await Self.send(member, Self.position(1000, from: place), to: meeting, receipt: "p1").command == .receipt)
            let first = try await organizer.location(meeting)
            #expect(first["userId"] as? String == bob.id && first["updatedAt"] is String)
            #expect(abs((first["distanceMeters"] as? Int ?? 0) - 1000) <= 1 && abs((first["etaSeconds"] as? Int ?? 0) - 714) <= 1, "\(first)")
            #expect(abs((first["lat"] as? Double ?? 0) - (place.lat + 1000 / ArrivalEstimatorMetres.perDegree)) < 1e-9)

            // Outsiders may neither send nor listen; bad coordinates are refused by field.
            #expect(try await Self.send(outsider, Self.position(10, from: place), to: meeting, receipt: "o").headers["code"] == "meeting.notMember")
            #expect(try await Self.subscribe(outsider, to: meeting).headers["code"] == "meeting.notMember")
            let invalid = try await Self.send(member, ["lat": 91.0, "lon": 30.0, "accuracy": -1.0], to: meeting, receipt: "bad")
            #expect(invalid.headers["code"] == "location.invalid" && invalid.text.contains("lat: field.outOfRange"), "\(invalid.text)")
            #expect(try await Self.send(member, ["lat": 50.0], to: meeting, receipt: "shape").headers["code"] == "request.invalidFields")

            // A new subscriber (Bob's second phone) gets the current positions at once.
            let second = try await Self.connect(port, bob)
            #expect(try await Self.subscribe(second, to: meeting).command == .receipt)
            #expect(try await second.location(meeting, within: 0)["userId"] as? String == bob.id)

            // A stop is heard by everyone; the next position opts in again.
            #expect(try await Self.send(member, ["stop": true], to: meeting, receipt: "stop").command == .receipt)
            for listener in [organizer, second] {
                let stopped = try await listener.location(meeting)
                #expect(stopped["userId"] as? String == bob.id && stopped["stopped"] as? Bool == true && stopped.count == 2)
            }
            #expect(try await Self.send(member, Self.position(500, from: place), to: meeting, receipt: "p2").command == .receipt)
            #expect(try await organizer.location(meeting)["distanceMeters"] as? Int == 500)

            // Half an hour after the start, sharing ends by itself and cannot start again.
            clock.setAhead(by: 3 * 3600 + 30 * 60 + 5)
            let closed = try await organizer.location(meeting)
            #expect(closed["userId"] as? String == bob.id && closed["stopped"] as? Bool == true)
            let late = try await Self.send(member, Self.position(10, from: place), to: meeting, receipt: "late")
            #expect(late.headers["code"] == "locationSharing.notOpen")
            for frames in [organizer, member, outsider, second] { await frames.close() }
        }
    }

    @Test func leavingOrLosingTheConnectionEndsSharing() async throws {
        let clock = SkewedClock()
        let port = try await Rooms.freeLoopbackPort()
        try await TestServer.run(now: { [clock] in clock.now }, stompPort: port) { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let dan = try await server.signedInUser()
            let (meeting, place) = try await Self.meeting(server, by: ann, startingIn: 1)
            try await Chat.join(server, bob, meeting)
            try await Chat.join(server, dan, meeting)
            let organizer = try await Self.connect(port, ann)
            let leaver = try await Self.connect(port, bob)
            let dropped = try await Self.connect(port, dan)
            #expect(try await Self.subscribe(organizer, to: meeting).command == .receipt)

            // Bob leaves the meeting: his sharing ends with it.
            #expect(try await Self.send(leaver, Self.position(800, from: place), to: meeting, receipt: "b").command == .receipt)
            #expect(try await organizer.location(meeting)["userId"] as? String == bob.id)
            #expect(try await server.send(.post, "/api/v1/meetings/\(meeting)/leave", token: bob.token).status == 204)
            let left = try await organizer.location(meeting)
            #expect(left["userId"] as? String == bob.id && left["stopped"] as? Bool == true)

            // Dan's phone loses its connection: once the grace (60 s) has passed on the
            // server's clock, his sharing ends. The clock moves on a minute at a time until the
            // server has seen the close, so the test never depends on how fast it does.
            #expect(try await Self.send(dropped, Self.position(300, from: place), to: meeting, receipt: "d").command == .receipt)
            #expect(try await organizer.location(meeting)["userId"] as? String == dan.id)
            await dropped.close()
            var stopped: [String: Any]?
            for minute in 1...20 where stopped == nil {
                clock.setAhead(by: Double(minute) * 61)
                stopped = try? await organizer.location(meeting, within: 2)
            }
            #expect(stopped?["userId"] as? String == dan.id && stopped?["stopped"] as? Bool == true)
            for frames in [organizer, leaver] { await frames.close() }
        }
    }
}

/// Metres per degree of latitude on the haversine's sphere.
enum ArrivalEstimatorMetres {
    static let perDegree = 6371.0088 * 1000 * .pi / 180
}
