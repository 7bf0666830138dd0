import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import Stomp

/// While a frame waits for its answer, the session goes on reading a little (a peer waiting for
/// its receipt sends nothing, and its channel keeps its read interest), and stops reading once
/// ``StompSession/readAheadBytes`` of input wait undecoded; the read comes back when the frame
/// is answered. Before CONNECTED is answered, nothing more is read.
@Suite struct StompReadAheadTests {
    /// Counts the reads that reach the channel.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// Holds back the answer for `/topic/held` until the test gives it; grants the rest.
    final class HoldingAuthorizer: StompAuthorizer {
        let held = Mutex<EventLoopPromise<Void>?>(nil)

        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            guard destination == "/topic/held" else { return eventLoop.makeSucceededVoidFuture() }
            let promise = eventLoop.makePromise(of: Void.self)
            held.withLock { $0 = promise }
            return promise.futureResult
        }
    }

    /// Holds back the answer to every CONNECT until the test gives it.
    final class HoldingAuthenticator: StompAuthenticator {
        let held = Mutex<EventLoopPromise<StompPrincipal>?>(nil)

        func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal> {
            let promise = eventLoop.makePromise(of: StompPrincipal.self)
            held.withLock { $0 = promise }
            return promise.futureResult
        }
    }

    @Test func nothingIsReadBehindAConnectUntilItIsAnswered() throws {
        let authenticator = HoldingAuthenticator()
        let broker = StompBroker(authenticator: authenticator, authorizer: HoldingAuthorizer(), application: TestApplication())
        let channel = EmbeddedChannel()
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(StompTransportHandler<StompTCPTransport>(broker: broker, transportToken: nil))
        try channel.writeInbound(ByteBuffer(string: "CONNECT\naccept-version:1.2\nhost:x\npasscode:token-alice\n\n\0"))
        let answer = try #require(authenticator.held.withLock { $0 })
        let before = counter.reads
        channel.read()
        #expect(counter.reads == before, "a CONNECT waits for its answer: nothing more is read")

        answer.succeed(StompPrincipal(userId: "alice"))
        channel.embeddedEventLoop.run()
        #expect(counter.reads == before + 1, "answered: the held read is made")
        #expect(String(buffer: try #require(try channel.readOutbound(as: ByteBuffer.self))).hasPrefix("CONNECTED"))
        _ = try? channel.finish()
    }

    @Test func readsGoOnUntilTheBoundThenWaitForTheAnswer() throws {
        let authorizer = HoldingAuthorizer()
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: authorizer, application: TestApplication())
        let channel = EmbeddedChannel()
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(StompTransportHandler<StompTCPTransport>(broker: broker, transportToken: nil))
        try channel.writeInbound(ByteBuffer(string: "CONNECT\naccept-version:1.2\nhost:x\npasscode:token-alice\n\n\0"))
        channel.embeddedEventLoop.run()
        #expect(String(buffer: try #require(try channel.readOutbound(as: ByteBuffer.self))).hasPrefix("CONNECTED"))

        // The SUBSCRIBE's answer is held back: the session is busy.
        try channel.writeInbound(ByteBuffer(string: "SUBSCRIBE\nid:held\ndestination:/topic/held\nreceipt:joined\n\n\0"))
        channel.embeddedEventLoop.run()
        let answer = try #require(authorizer.held.withLock { $0 })

        let before = counter.reads
        channel.read()
        #expect(counter.reads == before + 1, "nothing waits yet: the read goes through")

        let send = "SEND\ndestination:/topic/other\n\n\(String(repeating: "x", count: 1_000))\0"
        let sends = StompSession.readAheadBytes / send.utf8.count + 1
        try channel.writeInbound(ByteBuffer(string: String(repeating: send, count: sends)))
        channel.read()
        #expect(counter.reads == before + 1, "more than the bound waits: the read is held")

        answer.succeed()
        channel.embeddedEventLoop.run()
        #expect(counter.reads == before + 2, "answered and drained: the held read is made")
        var out = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { out.writeBuffer(&chunk) }
        #expect(String(buffer: out).hasPrefix("RECEIPT\nreceipt-id:joined\n"))
        _ = try? channel.finish()
    }
}
