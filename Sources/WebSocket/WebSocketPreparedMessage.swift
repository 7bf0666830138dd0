import NIOCore

/// A message framed once, to be written as it is to many connections: a fan-out sends the same
/// bytes to every recipient, and an unmasked, uncompressed server frame depends on nothing but
/// the message. A connection with permessage-deflate compresses ``message`` on its own instead.
public struct WebSocketPreparedMessage: Sendable {
    /// The message the frame carries.
    public let message: WebSocketMessage
    /// The whole frame, header and payload, as it goes on the wire without compression.
    let frame: ByteBuffer

    /// Frames the payload `writePayload` writes (about `payloadCapacity` bytes) without copying
    /// it: the payload goes behind room for the longest header, the header in front of it.
    public init(kind: WebSocketMessage.Kind, payloadCapacity: Int, allocator: ByteBufferAllocator,
                writePayload: (inout ByteBuffer) -> Void) {
        let room = WebSocketFrame.maximumServerHeaderSize
        var buffer = allocator.buffer(capacity: room + payloadCapacity)
        buffer.moveWriterIndex(forwardBy: room)
        buffer.moveReaderIndex(forwardBy: room)
        writePayload(&buffer)
        let end = buffer.writerIndex
        let length = end - room
        // Back to where the header starts, so that it ends where the payload begins.
        let start = room - WebSocketFrame.serverHeaderSize(length: length)
        buffer.moveReaderIndex(to: start)
        buffer.moveWriterIndex(to: start)
        WebSocketFrame.writeServerHeader(fin: true, rsv1: false, opcode: kind == .text ? .text : .binary,
                                         length: length, into: &buffer)
        buffer.moveWriterIndex(to: end)
        self.message = WebSocketMessage(kind: kind, data: buffer.getSlice(at: room, length: length)!)
        self.frame = buffer
    }
}

/// Writes prepared messages straight into one connection's WebSocket layer, without the
/// pipeline's generic write (no `NIOAny`, no handler walk) and without copying the frame when
/// it is the only one waiting for the next flush.
///
/// Only for the handler right above the WebSocket layer, on the channel's event loop: what it
/// writes joins the frames written through the pipeline in the order both were written, and
/// leaves at the next flush like them. Handlers in between would be bypassed.
public struct WebSocketFrameWriter {
    private let handler: WebSocketConnectionHandler
    private let context: ChannelHandlerContext

    fileprivate init(handler: WebSocketConnectionHandler, context: ChannelHandlerContext) {
        self.handler = handler
        self.context = context
    }

    /// Appends the message to what the connection writes at its next flush (dropped once the
    /// connection is closing, like any write then).
    public func write(_ message: WebSocketPreparedMessage) {
        self.handler.write(message, context: self.context)
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// The writer of the WebSocket layer on this pipeline (see ``WebSocketFrameWriter``).
    public func webSocketFrameWriter() throws -> WebSocketFrameWriter {
        let context = try self.context(handlerType: WebSocketConnectionHandler.self)
        guard let handler = context.handler as? WebSocketConnectionHandler else { throw ChannelPipelineError.notFound }
        return WebSocketFrameWriter(handler: handler, context: context)
    }
}
