import NIOCore
import NIOPosix
import Testing
@testable import Stomp

/// Routing, injected security and application, heart-beats and slow consumers.
@Suite(.timeLimit(.minutes(1))) struct StompBrokerTests {
    @Test func userQueuesReachEverySessionOfThatUserOnly() async throws {
        let fixture = try await BrokerFixture.start()
        let phone = try await fixture.client("alice")
        let laptop = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        for client in [phone, laptop, bob] { try await client.subscribe("/user/queue/notifications") }
        fixture.broker.send(toUser: "alice", destination: "/user/queue/notifications", body: ByteBuffer(string: "for alice"))
        fixture.broker.send(toUser: "bob", destination: "/user/queue/notifications", body: ByteBuffer(string: "for bob"))
        #expect(try await phone.next()?.text == "for alice")
        #expect(try await laptop.next()?.text == "for alice")
        let bobs = try #require(try await bob.next())
        #expect(bobs.text == "for bob")
        #expect(bobs.headers["destination"] == "/user/queue/notifications")
        await fixture.stop()
    }

    @Test func appDestinationsGoToTheApplication() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client("alice")
        try await alice.subscribe("/topic/echo", id: "1")
        try await alice.subscribe("/user/queue/replies", id: "2")
        let echoed = try await alice.sendAwaitingReceipt(StompFrame(.send, headers: ["destination": "/app/echo"], text: "hi"))
        #expect(echoed.map(\.text) == ["hi"])
        #expect(echoed.first?.headers["from"] == "alice")
        try await alice.send(StompFrame(.send, headers: ["destination": "/app/reply"], text: "just me"))
        let reply = try #require(try await alice.next())
        #expect(reply.headers["subscription"] == "2" && reply.text == "just me")
        await fixture.stop()
    }

    @Test func refusalsGoToTheErrorsQueueAndTheSessionStays() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.subscribe("/user/queue/errors", id: "errors")
        try await alice.send(StompFrame(.send, headers: ["destination": "/app/unknown", "receipt": "7"], text: "x"))
        let refusal = try #require(try await alice.next())
        #expect(refusal.headers["destination"] == "/user/queue/errors")
        #expect(refusal.headers["receipt-id"] == "7")
        #expect(refusal.text == #"{"code":"refused","message":"no such thing","destination":"/app/unknown"}"#)
        try await alice.send(StompFrame(.subscribe, headers: ["id": "f", "destination": "/topic/forbidden"]))
        #expect(try await alice.next()?.headers["code"] == "destination.forbidden")
        try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "ok", "destination": "/topic/fine"]))
        await fixture.stop()
    }

    @Test func refusalsWithoutAnErrorsQueueEndTheSession() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.send(StompFrame(.subscribe, headers: ["id": "f", "destination": "/topic/forbidden", "receipt": "1"]))
        let error = try #require(try await alice.next())
        #expect(error.command == .error && error.headers["message"] == "/topic/forbidden is forbidden")
        #expect(error.headers["receipt-id"] == "1")
        #expect(try await alice.next() == nil)
        await fixture.stop()
    }

    @Test func unroutableDestinationsAreRefused() async throws {
        let fixture = try await BrokerFixture.start()
        let alice = try await fixture.client()
        try await alice.send(StompFrame(.send, headers: ["destination": "/queue/x"]))
        #expect(try await alice.next()?.headers["message"] == "cannot send to /queue/x")
        await fixture.stop()
    }

    @Test func serverSendsHeartBeatsWhenIdle() async throws {
        let fixture = try await BrokerFixture.start { $0.heartBeat = StompHeartBeat(send: 20, receive: 0) }
        let raw = try await RawConnection.open(port: fixture.port)
        try await raw.write("CONNECT\naccept-version:1.2\npasscode:token-a\nheart-beat:0,20\n\n\0")
        // Beats may arrive coalesced with CONNECTED or with each other, so look for two anywhere after it.
        let received = try await raw.read { $0.contains("\0\n\n") }
        #expect(received.hasPrefix("CONNECTED\nversion:1.2\n"))
        #expect(received.contains("heart-beat:20,0\n"))
        await fixture.stop()
    }

    @Test func aMissingClientHeartBeatEndsTheSession() async throws {
        let fixture = try await BrokerFixture.start { $0.heartBeat = StompHeartBeat(send: 0, receive: 50) }
        let client = try await fixture.client(extra: ["heart-beat": "50,0"])
        let error = try #require(try await client.next())
        #expect(error.headers["message"]?.hasPrefix("heart-beat timeout") == true)
        #expect(try await client.next() == nil)
        await fixture.stop()
    }

    @Test func clientHeartBeatsKeepTheSessionAlive() async throws {
        // A 6 s window (1 s × 6) outlives the scheduling stalls of a loaded machine (a whole test
        // run on one core delays a 50 ms sleep by seconds); beating for longer than a window
        // proves that the beats, not the window, keep the session alive.
        let fixture = try await BrokerFixture.start {
            $0.heartBeat = StompHeartBeat(send: 0, receive: 1_000)
            $0.heartBeatTolerance = 6
        }
        let client = try await fixture.client(extra: ["heart-beat": "1000,0"])
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(7_500)
        while clock.now < end {
            try await client.send(bytes: ByteBuffer(string: "\n"))
            try await Task.sleep(for: .milliseconds(50))
        }
        try await client.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "1", "destination": "/topic/alive"]))
        await fixture.stop()
    }

    @Test func aSlowConsumerIsDroppedWithoutHoldingBackOthers() async throws {
        let limit = 256 * 1024
        let fixture = try await BrokerFixture.start {
            $0.maxOutboundBytes = limit
            $0.closeGracePeriod = .seconds(60)
        }
        let fast = try await fixture.client("fast")
        try await fast.subscribe("/topic/flood")
        let slow = try await RawConnection.open(port: fixture.port)
        try await slow.write("CONNECT\naccept-version:1.2\npasscode:token-slow\n\n\0SUBSCRIBE\nid:0\ndestination:/topic/flood\nreceipt:s\n\n\0")
        _ = try await slow.read { $0.contains("receipt-id:s") }
        try await slow.channel.setOption(.autoRead, value: false).get()

        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: 16 * 1024)
        var published = 0
        // The kernel's socket buffers absorb a few MiB before our own limit is reached.
        while fixture.broker.subscriberCount(of: "/topic/flood") == 2, published < 20_000 {
            fixture.broker.publish(to: "/topic/flood", body: body)
            published += 1
            var received = 0
            while received < 1 {
                guard let frame = try await fast.next() else { break }
                if frame.command == .message { received += 1 }
            }
        }
        #expect(fixture.broker.subscriberCount(of: "/topic/flood") == 1)
        try await slow.channel.setOption(.autoRead, value: true).get()
        let tail = try await slow.readUntilClosed()
        #expect(tail.contains("message:slow consumer\\c more than \(limit) bytes waiting to be sent\n"))
        // The fast consumer still receives everything, in order.
        fixture.broker.publish(to: "/topic/flood", body: ByteBuffer(string: "last"))
        #expect(try await fast.next()?.text == "last")
        await fixture.stop()
    }

    @Test func fanOutReachesEverySubscriberOnEveryEventLoopInOrder() async throws {
        let fixture = try await BrokerFixture.start()
        var clients: [StompClient] = []
        for index in 0..<12 {
            let client = try await fixture.client("u\(index)")
            try await client.subscribe("/topic/fan", id: "s\(index % 3)")
            clients.append(client)
        }
        for index in 0..<20 {
            fixture.broker.publish(to: "/topic/fan", body: ByteBuffer(string: "m\(index)"))
        }
        for (index, client) in clients.enumerated() {
            for expected in 0..<20 {
                let message = try #require(try await client.next())
                #expect(message.text == "m\(expected)")
                #expect(message.headers["subscription"] == "s\(index % 3)")
            }
        }
        await fixture.stop()
    }

    /// A message built on demand is built only for a destination with a subscriber, and then
    /// reaches it like any other.
    @Test func aMessageBuiltOnDemandIsBuiltOnlyForSubscribers() async throws {
        let fixture = try await BrokerFixture.start()
        var built = 0
        let make = { () -> (headers: StompHeaders, body: ByteBuffer) in
            built += 1
            return (["n": "1"], ByteBuffer(string: "built"))
        }
        fixture.broker.publish(to: "/topic/lazy", make)
        #expect(built == 0)
        let client = try await fixture.client()
        try await client.subscribe("/topic/lazy")
        fixture.broker.publish(to: "/topic/lazy", make)
        let message = try #require(try await client.next())
        #expect(message.text == "built")
        #expect(message.headers["n"] == "1")
        #expect(built == 1)
        await fixture.stop()
    }
}

extension StompBroker {
    /// How many subscriptions listen on a topic (tests only).
    func subscriberCount(of destination: String) -> Int {
        registryGroups(destination).reduce(0) { $0 + $1.subscribers.count }
    }
}
