import NIOCore

/// Turns an outgoing message into a server frame: compressed when permessage-deflate is on
/// and it pays, never masked, never fragmented.
@_spi(Tooling) public struct WebSocketMessageEncoder {
    /// Payloads up to this size are best copied behind their header, so that a frame is one
    /// write; larger ones are written as they are, without a copy.
    public static let coalescingLimit = 512

    private let deflate: PerMessageDeflate?

    /// An encoder with permessage-deflate, if `perMessageDeflate`: keeping its context across
    /// messages, or compressing each on its own with the thread's shared compressor if
    /// `serverNoContextTakeover`.
    public init(perMessageDeflate: Bool, serverNoContextTakeover: Bool = false) {
        var configuration = PerMessageDeflateConfiguration()
        configuration.minimumMessageSize = 0
        var parameters = PerMessageDeflateParameters()
        parameters.serverNoContextTakeover = serverNoContextTakeover
        self.init(deflate: perMessageDeflate ? PerMessageDeflate(parameters: parameters, configuration: configuration) : nil)
    }

    init(deflate: PerMessageDeflate?) {
        self.deflate = deflate
    }

    /// Whether messages may leave compressed (permessage-deflate is on).
    var compresses: Bool { deflate != nil }

    /// The frame header and the (possibly compressed) payload, to be written in this order.
    public func encode(
        _ message: WebSocketMessage,
        allocator: ByteBufferAllocator
    ) throws -> (header: ByteBuffer, payload: ByteBuffer) {
        var header = allocator.buffer(capacity: WebSocketFrame.maximumServerHeaderSize)
        let payload = try self.encode(message, appendingHeaderTo: &header, allocator: allocator)
        return (header, payload)
    }

    /// Appends the frame to `frames`, the bytes waiting for the connection's next write: its
    /// header, and its payload too when that is at most ``coalescingLimit`` bytes. A larger
    /// payload is returned instead, to be written right after `frames` as it is.
    public func encode(
        _ message: WebSocketMessage,
        appendingTo frames: inout ByteBuffer,
        allocator: ByteBufferAllocator
    ) throws -> ByteBuffer? {
        let payload = try self.encode(message, appendingHeaderTo: &frames, allocator: allocator)
        guard payload.readableBytes <= Self.coalescingLimit else { return payload }
        frames.writeImmutableBuffer(payload)
        return nil
    }

    /// Writes the header into `buffer` and returns the payload as it goes on the wire.
    private func encode(
        _ message: WebSocketMessage,
        appendingHeaderTo buffer: inout ByteBuffer,
        allocator: ByteBufferAllocator
    ) throws -> ByteBuffer {
        var payload = message.data
        var compressed = false
        if let deflate, let smaller = try deflate.compress(message.data, allocator: allocator) {
            payload = smaller
            compressed = true
        }
        WebSocketFrame.writeServerHeader(
            fin: true,
            rsv1: compressed,
            opcode: message.kind == .text ? .text : .binary,
            length: payload.readableBytes,
            into: &buffer
        )
        return payload
    }
}
