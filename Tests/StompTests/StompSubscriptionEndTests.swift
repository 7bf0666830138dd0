import NIOCore
import Testing
@testable import Stomp

/// `StompBroker.endSubscriptions(ofUser:to:refusal:)`: the server takes one user's
/// subscriptions to a destination away, on every device, without a last MESSAGE.
@Suite(.timeLimit(.minutes(1))) struct StompSubscriptionEndTests {
    static let gone = StompRefusal(code: "room.left", message: "you left the room")

    @Test func everyDeviceOfThatUserLosesItAndIsTold() async throws {
        let fixture = try await BrokerFixture.start()
        let phone = try await fixture.client("alice")
        let laptop = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        for client in [phone, laptop, bob] {
            try await client.subscribe("/user/queue/errors", id: "errors")
            try await client.subscribe("/topic/room", id: "room")
            try await client.subscribe("/topic/other", id: "other")
        }

        fixture.broker.endSubscriptions(ofUser: "alice", to: "/topic/room", refusal: Self.gone)
        for device in [phone, laptop] {
            let told = try #require(try await device.next())
            #expect(told.command == .message && told.headers["destination"] == "/user/queue/errors")
            #expect(told.headers["code"] == "room.left")
            #expect(told.text == #"{"code":"room.left","message":"you left the room","destination":"/topic/room","subscription":"room"}"#)
        }
        fixture.broker.publish(to: "/topic/room", body: ByteBuffer(string: "after"))
        fixture.broker.publish(to: "/topic/other", body: ByteBuffer(string: "elsewhere"))
        #expect(try await bob.next()?.text == "after")
        #expect(try await bob.next()?.text == "elsewhere")
        // Alice's devices hear the other room only; their sessions carry on.
        for device in [phone, laptop] {
            #expect(try await device.next()?.headers["destination"] == "/topic/other")
            try await device.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "again", "destination": "/topic/room"]))
        }
        // Ending what is not there does nothing.
        fixture.broker.endSubscriptions(ofUser: "carol", to: "/topic/room", refusal: Self.gone)
        fixture.broker.publish(to: "/topic/room", body: ByteBuffer(string: "back"))
        #expect(try await phone.next()?.headers["subscription"] == "again")
        await fixture.stop()
    }

    /// The ending is decided on the caller's thread and carried out on each session's loop; a
    /// client that reused the id in between keeps its new subscription.
    @Test func aSubscriptionThatReusedTheIdMeanwhileStays() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client("alice")
        try await alice.subscribe("/user/queue/errors", id: "errors")
        try await alice.subscribe("/topic/room", id: "room")
        let decided = fixture.broker.subscriptions(ofUser: "alice", to: "/topic/room")
        #expect(decided.flatMap(\.subscribers).map(\.subscriptionId) == ["room"])
        try await alice.sendAwaitingReceipt(StompFrame(.unsubscribe, headers: ["id": "room"]))
        try await alice.subscribe("/topic/other", id: "room")

        fixture.broker.end(decided, refusal: Self.gone)
        fixture.broker.publish(to: "/topic/other", body: ByteBuffer(string: "still here"))
        let next = try #require(try await alice.next())
        #expect(next.headers["destination"] == "/topic/other" && next.text == "still here", "\(next.headers)")
        await fixture.stop()
    }

    @Test func withoutAnErrorsQueueTheSessionGetsErrorAndCloses() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client("alice")
        try await alice.subscribe("/topic/room", id: "room")
        fixture.broker.endSubscriptions(ofUser: "alice", to: "/topic/room", refusal: Self.gone)
        let error = try #require(try await alice.next())
        #expect(error.command == .error && error.headers["code"] == "room.left")
        #expect(try await alice.next() == nil)
        await fixture.stop()
    }
}
