import CompressNIO
import NIOCore

/// Compresses outgoing and inflates incoming messages of one connection (RFC 7692 §7.2).
///
/// Uses CompressNIO's raw-deflate zlib streams: they take the window size, sync-flush and can
/// be reset between messages, which is all permessage-deflate needs. A direction without
/// context takeover (the server's default for both) borrows its thread's shared stream for
/// each message (``PerMessageDeflateStreams``), so an idle connection holds no zlib state; with
/// context takeover the connection keeps its own stream, made on first use, for its life.
final class PerMessageDeflate {
    /// Every compressed message ends with an empty stored block that the sender strips.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    /// Inflated output grows by at least this much at a time, checked against the cap each time.
    private static let inflateStep = 64 * 1024

    let parameters: PerMessageDeflateParameters
    let configuration: PerMessageDeflateConfiguration
    /// The connection's own compressor: with server context takeover only.
    private var compressor: ZlibCompressor?
    /// The connection's own inflater: with client context takeover, or while a message arrives
    /// in several frames (the thread's shared inflater cannot wait between reads).
    private var decompressor: ZlibDecompressor?
    /// Whether a compressed message has begun in a frame that was not its last.
    private var inflatingFragments = false

    init(parameters: PerMessageDeflateParameters, configuration: PerMessageDeflateConfiguration) {
        self.parameters = parameters
        self.configuration = configuration
    }

    /// The compressed payload of a message, or `nil` when it is to be sent uncompressed.
    ///
    /// With context takeover, every message the compressor has seen is part of the window the
    /// peer's inflater must share: once a message went in, it must go out compressed, even when
    /// that is a few bytes longer. Sending it uncompressed instead left the peer without bytes
    /// that later messages refer back to (the corruption of issue 9). Without context takeover
    /// each message is compressed on its own, so one that does not shrink goes out as it is.
    func compress(_ message: ByteBuffer, allocator: ByteBufferAllocator) throws -> ByteBuffer? {
        guard message.readableBytes >= self.configuration.minimumMessageSize else { return nil }
        guard !self.parameters.serverNoContextTakeover else {
            let key = PerMessageDeflateStreams.CompressorKey(
                windowBits: self.parameters.serverMaxWindowBits, level: self.configuration.compressionLevel,
                memoryLevel: self.configuration.memoryLevel)
            return try PerMessageDeflateStreams.current.compressAlone(message, key: key, allocator: allocator)
        }
        let compressor = try self.compressor ?? PerMessageDeflateStreams.makeCompressor(.init(
            windowBits: self.parameters.serverMaxWindowBits, level: self.configuration.compressionLevel,
            memoryLevel: self.configuration.memoryLevel))
        self.compressor = compressor
        var input = message
        var output = allocator.buffer(capacity: compressor.maxSize(from: input))
        try compressor.deflate(from: &input, to: &output, flush: .sync)
        Self.stripTail(&output)
        return output
    }

    /// Removes the empty stored block that ends a sync-flushed message (RFC 7692 §7.2.1).
    static func stripTail(_ output: inout ByteBuffer) {
        if output.readableBytes >= 4, output.getBytes(at: output.writerIndex - 4, length: 4) == Self.tail {
            output.moveWriterIndex(to: output.writerIndex - 4)
        }
    }

    /// Inflates one frame's payload of a compressed message onto `output`.
    ///
    /// Throws `messageTooBig` as soon as the message inflates past `limit` bytes; growth is
    /// requested only up to `limit + 1`, so a compression bomb cannot make it allocate much more.
    func inflate(
        _ payload: ByteBuffer,
        isFinal: Bool,
        into output: inout ByteBuffer,
        limit: Int
    ) throws(WebSocketProtocolError) {
        var input = payload
        if isFinal {
            input.writeBytes(Self.tail)
        }
        do {
            if self.parameters.clientNoContextTakeover && isFinal && !self.inflatingFragments {
                let shared = try PerMessageDeflateStreams.current.decompressor()
                defer { try? shared.reset() }
                try Self.pump(&input, through: shared, into: &output, limit: limit)
                return
            }
            let decompressor = try self.decompressor ?? ZlibDecompressor(
                algorithm: .deflate,
                windowSize: Int32(max(self.parameters.clientMaxWindowBits, 9))
            )
            self.decompressor = decompressor
            self.inflatingFragments = !isFinal
            try Self.pump(&input, through: decompressor, into: &output, limit: limit)
            if isFinal && self.parameters.clientNoContextTakeover {
                self.decompressor = nil
            }
        } catch let error as WebSocketProtocolError {
            throw error
        } catch {
            throw WebSocketProtocolError(code: .invalidFramePayloadData, reason: "invalid compressed data")
        }
    }

    private static func pump(
        _ input: inout ByteBuffer,
        through decompressor: ZlibDecompressor,
        into output: inout ByteBuffer,
        limit: Int
    ) throws {
        var resetForNewStream = false
        while true {
            guard output.readableBytes <= limit else { throw WebSocketProtocolError.messageTooBig }
            if output.writableBytes == 0 {
                // Grow geometrically (copies stay linear overall), asking for no more than the cap + 1.
                let step = max(Self.inflateStep, output.readableBytes)
                output.reserveCapacity(minimumWritableBytes: min(step, limit + 1 - output.readableBytes))
            }
            let pending = input.readableBytes
            do {
                try decompressor.inflate(from: &input, to: &output)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                continue  // output full: grow (within the cap) and go on
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                return  // everything available is inflated
            }
            if input.readableBytes == 0 { return }
            // The peer ended its deflate stream (BFINAL) and began another: start afresh once.
            guard input.readableBytes < pending || !resetForNewStream else {
                throw WebSocketProtocolError(code: .invalidFramePayloadData, reason: "invalid compressed data")
            }
            resetForNewStream = input.readableBytes == pending
            if resetForNewStream { try decompressor.reset() }
        }
    }
}
