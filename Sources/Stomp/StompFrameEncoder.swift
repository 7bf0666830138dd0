import NIOCore

/// Writes STOMP frames. Headers are escaped as the negotiated version requires, and frames that
/// may carry a body always get a `content-length`, so bodies containing NUL survive any peer.
public enum StompFrameEncoder {
    /// Appends `frame` to `buffer`.
    public static func write(_ frame: StompFrame, version: StompVersion, into buffer: inout ByteBuffer) {
        buffer.writeString(frame.command.rawValue)
        buffer.writeInteger(UInt8(ascii: "\n"))
        let escaped = frame.command.escapesHeaders
        for (name, value) in frame.headers.pairs where name != "content-length" {
            writeHeader(name, value, version: version, escaped: escaped, into: &buffer)
        }
        finish(body: frame.body, withLength: frame.command.allowsBody, into: &buffer)
    }

    /// Encodes `frame` into a new buffer.
    public static func encode(_ frame: StompFrame, version: StompVersion,
                              allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 64 + frame.body.readableBytes + frame.headers.count * 32)
        write(frame, version: version, into: &buffer)
        return buffer
    }

    static func writeHeader(_ name: String, _ value: String, version: StompVersion, escaped: Bool,
                            into buffer: inout ByteBuffer) {
        StompHeaderEscaping.write(name, version: version, escaped: escaped, into: &buffer)
        buffer.writeInteger(UInt8(ascii: ":"))
        StompHeaderEscaping.write(value, version: version, escaped: escaped, into: &buffer)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// Writes `content-length` (when the frame may have a body), the blank line, the body and NUL.
    static func finish(body: ByteBuffer, withLength: Bool, into buffer: inout ByteBuffer) {
        if withLength {
            buffer.writeStaticString("content-length:")
            buffer.writeString(String(body.readableBytes))
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
        buffer.writeImmutableBuffer(body)
        buffer.writeInteger(UInt8(0))
    }
}
