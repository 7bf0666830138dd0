import NIOCore

/// The least of WebSocket a benchmark client needs: it masks what it sends (with a zero key,
/// which leaves the bytes as they are) and strips the headers of what the server sends.
struct BenchmarkWebSocketFraming {
    /// Received bytes not yet a whole frame.
    private var pending = ByteBuffer()

    /// One masked text frame carrying `payload`.
    static func clientFrame(_ payload: ByteBuffer) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.writeInteger(UInt8(0x81))
        if payload.readableBytes < 126 {
            frame.writeInteger(UInt8(0x80 | payload.readableBytes))
        } else {
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(payload.readableBytes))
        }
        frame.writeInteger(UInt32(0))
        frame.writeImmutableBuffer(payload)
        return frame
    }

    /// Takes `bytes` in and returns the next whole frame's payload, if one is complete, and
    /// whether it is compressed.
    mutating func next(from bytes: inout ByteBuffer) -> (payload: ByteBuffer, compressed: Bool)? {
        if bytes.readableBytes > 0 { pending.writeBuffer(&bytes) }
        guard let first = pending.getInteger(at: pending.readerIndex, as: UInt8.self),
              let second = pending.getInteger(at: pending.readerIndex + 1, as: UInt8.self) else { return nil }
        var header = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let wide = pending.getInteger(at: pending.readerIndex + 2, as: UInt16.self) else { return nil }
            length = Int(wide)
            header = 4
        } else if length == 127 {
            guard let wide = pending.getInteger(at: pending.readerIndex + 2, as: UInt64.self) else { return nil }
            length = Int(wide)
            header = 10
        }
        guard pending.readableBytes >= header + length else {
            pending.discardReadBytes()
            return nil
        }
        pending.moveReaderIndex(forwardBy: header)
        return (pending.readSlice(length: length)!, first & 0x40 != 0)
    }
}
