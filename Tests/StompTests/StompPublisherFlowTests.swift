import Dispatch
import NIOCore
import NIOPosix
import Testing
@testable import Stomp

/// Back-pressure on publishers. It moves 16 MiB to each of two stalled subscribers, which
/// takes seconds on a quiet machine and more than a minute on a loaded one: hence its own,
/// longer time limit.
@Suite(.timeLimit(.minutes(3))) struct StompPublisherFlowTests {
    @Test func aPublisherWaitsWhileMostOfItsRecipientsAreBehind() async throws {
        // A stalled subscriber on a loop that runs late (a loaded machine) is not yet behind when
        // the other one is: meanwhile the other may not pass the slow-consumer limit, so it is
        // 4 MiB here, 64 messages of slack instead of 16; still far below what is sent.
        let fixture = try await BrokerFixture.start {
            $0.publisherPauseLimit = .seconds(60)
            $0.maxOutboundBytes = 4 << 20
        }
        var stalled: [RawConnection] = []
        for name in ["a", "b"] {
            let connection = try await RawConnection.open(port: fixture.port)
            try await connection.write("CONNECT\naccept-version:1.2\npasscode:token-\(name)\n\n\0"
                                       + "SUBSCRIBE\nid:0\ndestination:/topic/jam\nreceipt:s\n\n\0")
            _ = try await connection.read { $0.contains("receipt-id:s") }
            try await connection.channel.setOption(.autoRead, value: false).get()
            stalled.append(connection)
        }
        let publisher = try await fixture.client("publisher")
        // 16 MiB each: far more than the sockets hold (some 4 MB on loopback) and the slow-consumer
        // limit together, in few enough SENDs (each waits for its receipt) to take seconds even on
        // a loaded machine.
        let count = 256
        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let publishing = Task {
            for index in 0..<count {
                var message = body
                if index == count - 1 { message.writeString("last") }
                try await publisher.sendAwaitingReceipt(StompFrame(.send, headers: ["destination": "/topic/jam"], body: message),
                                                        receipt: "p\(index)")
            }
        }
        while fixture.broker.publisherPauseCount.load(ordering: .relaxed) == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        // The publisher waits instead of the subscribers being cut off; once they read, all goes on.
        #expect(fixture.broker.subscriberCount(of: "/topic/jam") == 2)
        for connection in stalled { try await connection.channel.setOption(.autoRead, value: true).get() }
        for connection in stalled {
            let received = try await connection.read { $0.hasSuffix("last\0") }
            #expect(received.utf8.count(where: { $0 == 0 }) == count)  // one NUL ends each MESSAGE
        }
        try await publishing.value
        await fixture.stop()
    }

    @Test func anotherLoopsBacklogPausesPublishersUntilItCatchesUp() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let flushes = StompFlushBatch(eventLoop: loop)
        let recipients = [StompSubscriptionRegistry.LoopGroup(eventLoop: loop, flushes: flushes, subscribers: [])]
        // The loop is held busy (as by a core it shares) while deliveries are handed to it.
        let held = DispatchSemaphore(value: 0)
        loop.execute { _ = held.wait(timeout: .now() + 60) }
        for _ in 0..<StompPublisherFlow.maximumBacklog { flushes.handOver {} }
        #expect(!StompPublisherFlow.isCongested(recipients))
        flushes.handOver {}
        #expect(StompPublisherFlow.isCongested(recipients))
        held.signal()
        let deadline = ContinuousClock.now + BrokerFixture.patience
        while flushes.backlog > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(flushes.backlog == 0)
        #expect(!StompPublisherFlow.isCongested(recipients))
        try await group.shutdownGracefully()
    }
}
