import NIOCore

/// Turns an outgoing message into a server frame: compressed when permessage-deflate is on
/// and it pays, never masked, never fragmented.
@_spi(Tooling) public struct WebSocketMessageEncoder {
    /// Payloads up to this size are best copied behind their header, so that a frame is one
    /// write; the header buffer has room for them.
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

    /// The frame header and the (possibly compressed) payload, to be written in this order.
    public func encode(
        _ message: WebSocketMessage,
        allocator: ByteBufferAllocator
    ) throws -> (header: ByteBuffer, payload: ByteBuffer) {
        var payload = message.data
        var compressed = false
        if let deflate, let smaller = try deflate.compress(message.data, allocator: allocator) {
            payload = smaller
            compressed = true
        }
        let room = payload.readableBytes <= Self.coalescingLimit ? payload.readableBytes : 0
        var header = allocator.buffer(capacity: WebSocketFrame.maximumServerHeaderSize + room)
        WebSocketFrame.writeServerHeader(
            fin: true,
            rsv1: compressed,
            opcode: message.kind == .text ? .text : .binary,
            length: payload.readableBytes,
            into: &header
        )
        return (header, payload)
    }
}
