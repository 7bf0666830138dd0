import NIOCore
import NIOEmbedded
import Testing
@_spi(Tooling) @testable import WebSocket

/// Messages framed once and written to many connections through ``WebSocketFrameWriter``.
@Suite struct PreparedMessageTests {
    private func prepared(_ text: String) -> WebSocketPreparedMessage {
        WebSocketPreparedMessage(kind: .text, payloadCapacity: 8, allocator: ByteBufferAllocator()) { $0.writeString(text) }
    }

    private func writer(_ connection: Connection) throws -> WebSocketFrameWriter {
        try connection.channel.pipeline.syncOperations.webSocketFrameWriter()
    }

    @Test(arguments: [0, 125, 126, 65_535, 65_536])
    func theFrameIsTheMessageWithItsHeader(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let message = WebSocketPreparedMessage(kind: .binary, payloadCapacity: 0, allocator: ByteBufferAllocator()) {
            $0.writeBytes(payload)
        }
        #expect(message.message == WebSocketMessage(kind: .binary, data: ByteBuffer(bytes: payload)))
        #expect(ServerFrame.parseAll(message.frame) == [ServerFrame(fin: true, rsv1: false, opcode: 0x2, payload: payload)])
    }

    @Test func aLoneFrameLeavesAsItIsWithoutACopy() throws {
        let connection = try Connection()
        let message = self.prepared("hello")
        try self.writer(connection).write(message)
        connection.channel.flush()
        let written = try #require(try connection.channel.readOutbound(as: ByteBuffer.self))
        #expect(written == message.frame)
        written.withUnsafeReadableBytes { a in
            message.frame.withUnsafeReadableBytes { b in #expect(a.baseAddress == b.baseAddress) }
        }
        #expect(try connection.channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    @Test func preparedAndPipelineWritesLeaveInTheOrderWritten() throws {
        let connection = try Connection()
        let writer = try self.writer(connection)
        writer.write(self.prepared("one"))
        connection.channel.write(WebSocketMessage.text("two"), promise: nil)
        writer.write(self.prepared("three"))
        let large = String(repeating: "x", count: WebSocketMessageEncoder.coalescingLimit + 1)
        writer.write(self.prepared(large))
        writer.write(self.prepared("five"))
        connection.channel.flush()
        #expect(try connection.written().map { String(decoding: $0.payload, as: UTF8.self) } == ["one", "two", "three", large, "five"])
        // Nothing written to the shared frames themselves: the next connection gets them intact.
        let again = try Connection()
        let message = self.prepared("one")
        try self.writer(again).write(message)
        again.channel.write(WebSocketMessage.text("two"), promise: nil)
        again.channel.flush()
        #expect(ServerFrame.parseAll(message.frame).map(\.payload) == [Array("one".utf8)])
        #expect(try again.written().count == 2)
    }

    @Test func aCompressingConnectionCompressesTheMessageAsAnyWrite() throws {
        let long = String(repeating: "meetup chat ", count: 100)
        let prepared = try Connection(deflate: PerMessageDeflateParameters())
        try self.writer(prepared).write(self.prepared(long))
        prepared.channel.flush()
        let written = try Connection(deflate: PerMessageDeflateParameters())
        written.channel.writeAndFlush(WebSocketMessage.text(long), promise: nil)
        let frames = try prepared.written()
        #expect(frames.map(\.rsv1) == [true])
        #expect(frames == (try written.written()))
    }

    @Test func nothingIsWrittenOnceClosing() throws {
        let connection = try Connection()
        connection.channel.pipeline.triggerUserOutboundEvent(WebSocketCloseRequest(code: .goingAway), promise: nil)
        #expect(try connection.written().map(\.closeCode) == [1001])
        try self.writer(connection).write(self.prepared("late"))
        connection.channel.flush()
        #expect(try connection.written().isEmpty)
    }
}
