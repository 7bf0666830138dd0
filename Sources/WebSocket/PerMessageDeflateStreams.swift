import CompressNIO
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The zlib streams of one thread (in the server, one event loop), shared by every connection
/// on it whose messages are compressed or inflated without context takeover.
///
/// Such a stream is reset after each message, so between messages it holds nothing of any
/// connection and one per thread serves them all: an idle compressed session then costs no zlib
/// memory at all, instead of about 300 KiB for its own compressor and inflater. A broadcast
/// written to many sessions of one loop in a row (the STOMP broker shares one MESSAGE buffer
/// among them) is compressed once: the last input and its result are kept, and the same bytes
/// again reuse the result.
final class PerMessageDeflateStreams {
    /// What a compressed message depends on besides its bytes.
    struct CompressorKey: Hashable {
        var windowBits: Int
        var level: Int32
        var memoryLevel: Int32
    }

    private var compressors: [CompressorKey: ZlibCompressor] = [:]
    private var sharedDecompressor: ZlibDecompressor?
    private var lastCompressed: (input: ByteBuffer, key: CompressorKey, output: ByteBuffer?)?
    private static let largestRemembered = 64 * 1024

    /// This thread's streams, made on first use and released when the thread ends.
    static var current: PerMessageDeflateStreams {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<PerMessageDeflateStreams>.fromOpaque(pointer).takeUnretainedValue()
        }
        let streams = PerMessageDeflateStreams()
        pthread_setspecific(threadKey, Unmanaged.passRetained(streams).toOpaque())
        return streams
    }

    /// `message` compressed on its own (the compressor forgets it afterwards), without the
    /// trailing empty block, or `nil` when that would not be smaller.
    func compressAlone(_ message: ByteBuffer, key: CompressorKey, allocator: ByteBufferAllocator) throws -> ByteBuffer? {
        if let last = self.lastCompressed, last.key == key, Self.sameBytes(last.input, message) {
            return last.output
        }
        let compressor = try self.compressors[key] ?? Self.makeCompressor(key)
        self.compressors[key] = compressor
        var input = message
        var output = allocator.buffer(capacity: compressor.maxSize(from: input))
        defer { try? compressor.reset() }
        try compressor.deflate(from: &input, to: &output, flush: .sync)
        PerMessageDeflate.stripTail(&output)
        let result = output.readableBytes < message.readableBytes ? output : nil
        // Broadcasts are chat-sized; a large message is not worth keeping alive for a repeat.
        self.lastCompressed = message.readableBytes <= Self.largestRemembered ? (message, key, result) : nil
        return result
    }

    /// This thread's inflater for a message that arrives whole in one frame. Reset it after
    /// the message. A 15-bit window inflates any smaller one, so one inflater serves every client.
    func decompressor() throws -> ZlibDecompressor {
        let decompressor = try self.sharedDecompressor ?? ZlibDecompressor(algorithm: .deflate, windowSize: 15)
        self.sharedDecompressor = decompressor
        return decompressor
    }

    /// Whether two buffers show the same bytes because they are views of the same storage.
    /// `lastCompressed` keeps its input alive, so that storage cannot have been freed and
    /// reused, nor changed in place (a shared `ByteBuffer` copies before it is written to).
    private static func sameBytes(_ a: ByteBuffer, _ b: ByteBuffer) -> Bool {
        guard a.readableBytes == b.readableBytes else { return false }
        let first = a.withUnsafeReadableBytes { $0.baseAddress }
        return first != nil && first == b.withUnsafeReadableBytes { $0.baseAddress }
    }

    static func makeCompressor(_ key: CompressorKey) throws -> ZlibCompressor {
        try ZlibCompressor(
            algorithm: .deflate,
            configuration: ZlibConfiguration(
                windowSize: Int32(key.windowBits), compressionLevel: key.level, memoryLevel: key.memoryLevel, strategy: .default))
    }
}

/// The thread-specific slot of ``PerMessageDeflateStreams/current``; its destructor releases a
/// thread's streams when the thread ends.
private let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<PerMessageDeflateStreams>.fromOpaque(pointer).release()
    }
    precondition(created == 0, "no thread-specific key for the zlib streams")
    return key
}()
