import NIOCore
import NIOEmbedded
import Testing
import WebSocket
@testable import MeetServer

/// Counts the reads that get past the handler in front of it.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    var reads = 0
    func read(context: ChannelHandlerContext) {
        self.reads += 1
        context.read()
    }
}

@Suite struct WebSocketEchoHandlerTests {
    @Test func echoesEachMessageAndFlushesPerRead() throws {
        let channel = EmbeddedChannel(handler: WebSocketEchoHandler())
        try channel.writeInbound(WebSocketMessage.text("one"))
        try channel.writeInbound(WebSocketMessage(kind: .binary, data: ByteBuffer(bytes: [1, 2])))
        #expect(try channel.readOutbound(as: WebSocketMessage.self) == .text("one"))
        #expect(try channel.readOutbound(as: WebSocketMessage.self) == WebSocketMessage(kind: .binary, data: ByteBuffer(bytes: [1, 2])))
    }

    @Test func stopsReadingWhileThePeerDoesNotReadItsEchoes() throws {
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([counter, WebSocketEchoHandler()])
        channel.read()
        #expect(counter.reads == 1)

        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.read()
        #expect(counter.reads == 1, "the read is held back")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(counter.reads == 2, "and released once the socket drains")
    }
}
