import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming STOMP frame decoder. Feed it the bytes received so far; it consumes what it has
/// understood and returns each complete frame. Any split of the input decodes the same frames.
///
/// Accepts `\n` and `\r\n` line ends, heart-beat EOLs between frames, escaped headers per version,
/// repeated headers (first wins), NUL-terminated bodies and `content-length` bodies containing NUL.
/// Every limit is checked as soon as it can be exceeded, so a peer cannot make it buffer more
/// than one limit's worth of bytes.
public struct StompFrameDecoder: Sendable {
    private enum State: Sendable {
        /// Between frames: skipping heart-beat EOLs, then reading the command line.
        case command
        /// Reading header lines until the empty line.
        case headers(StompCommand, StompHeaders)
        /// Reading the body, either a known number of bytes or up to the NUL.
        case body(StompCommand, StompHeaders, contentLength: Int?)
    }

    private var state: State = .command
    /// How many bytes past the reader index were already searched for the current terminator, so
    /// that input arriving a byte at a time is scanned once rather than quadratically.
    private var scanned = 0

    /// The negotiated version, which decides header unescaping. Until CONNECT/CONNECTED has been
    /// exchanged it is 1.0: those frames are never escaped.
    public var version: StompVersion = .v1_0
    /// The limits enforced on every frame.
    public let limits: StompLimits

    /// Creates a decoder.
    public init(limits: StompLimits = StompLimits()) {
        self.limits = limits
    }

    /// Decodes the next complete frame from `buffer`, consuming its bytes; returns `nil` when more
    /// input is needed (the bytes read so far are consumed or remembered, never lost). After it
    /// throws, the connection is to be closed: the decoder may have lost the frame it was in.
    public mutating func next(from buffer: inout ByteBuffer) throws(StompProtocolError) -> StompFrame? {
        while true {
            switch state {
            case .command:
                skipEndOfLines(&buffer)
                guard let line = try readLine(&buffer, limit: limits.maxCommandLength,
                                               error: .commandTooLong(limit: limits.maxCommandLength)) else {
                    return nil
                }
                guard let command = StompCommand(line: line) else {
                    throw .unknownCommand(String(buffer: line))
                }
                state = .headers(command, StompHeaders(reservingCapacity: 8))
            case .headers(let command, var headers):
                guard let line = try readLine(&buffer, limit: limits.maxHeaderLength,
                                               error: .headerTooLong(limit: limits.maxHeaderLength)) else {
                    return nil
                }
                if line.readableBytes == 0 {
                    state = .body(command, headers, contentLength: try contentLength(headers))
                    continue
                }
                guard headers.count < limits.maxHeaderCount else { throw .tooManyHeaders(limit: limits.maxHeaderCount) }
                // The state lets go of the headers while one is added, so that they are not
                // copied for each line (an error ends the decoder's use, see above).
                state = .command
                try Self.append(line, to: &headers, command: command, version: version)
                state = .headers(command, headers)
            case .body(let command, let headers, let contentLength):
                guard let body = try readBody(&buffer, contentLength: contentLength) else { return nil }
                state = .command
                if body.readableBytes > 0, !command.allowsBody { throw .bodyNotAllowed(command) }
                return StompFrame(command, headers: headers, body: body)
            }
        }
    }

    /// Reads a header line's bytes in place: through `ByteBufferView` each byte was an index
    /// check and an exclusive access (a third of decoding a chat SEND, issue 10).
    private static func append(_ line: ByteBuffer, to headers: inout StompHeaders, command: StompCommand,
                               version: StompVersion) throws(StompProtocolError) {
        let escaped = command.escapesHeaders
        let header = line.withUnsafeReadableBytes { raw -> Result<(String, String), StompProtocolError> in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.malformedHeader) }
            return Result { () throws(StompProtocolError) in
                (try StompHeaderEscaping.decode(UnsafeBufferPointer(rebasing: bytes[..<colon]), version: version, escaped: escaped),
                 try StompHeaderEscaping.decode(UnsafeBufferPointer(rebasing: bytes[(colon + 1)...]), version: version, escaped: escaped))
            }
        }
        let (name, value) = try header.get()
        headers.add(name, value)
    }

    private func contentLength(_ headers: StompHeaders) throws(StompProtocolError) -> Int? {
        guard let value = headers["content-length"] else { return nil }
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let length = Int(value) else {
            throw .invalidContentLength(value)
        }
        guard length <= limits.maxBodySize else { throw .bodyTooLarge(limit: limits.maxBodySize) }
        return length
    }

    /// Consumes heart-beat EOLs (`\n` or `\r\n`) ahead of a frame; a lone `\r` waits for its `\n`.
    private mutating func skipEndOfLines(_ buffer: inout ByteBuffer) {
        while let byte = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) {
            if byte == UInt8(ascii: "\n") {
                buffer.moveReaderIndex(forwardBy: 1)
                scanned = 0
            } else if byte == UInt8(ascii: "\r"),
                      buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self) == UInt8(ascii: "\n") {
                buffer.moveReaderIndex(forwardBy: 2)
                scanned = 0
            } else {
                return
            }
        }
    }

    /// Reads one line without its `\n` (and a `\r` before it), or returns `nil` if it is incomplete.
    private mutating func readLine(_ buffer: inout ByteBuffer, limit: Int,
                                   error: StompProtocolError) throws(StompProtocolError) -> ByteBuffer? {
        let available = buffer.readableBytes
        guard let newline = Self.offset(of: UInt8(ascii: "\n"), in: buffer, from: scanned) else {
            // A `\r` may still be followed by `\n`, so allow one byte over the limit while waiting.
            guard available <= limit + 1 else { throw error }
            scanned = available
            return nil
        }
        scanned = 0
        var length = newline
        if length > 0, buffer.getInteger(at: buffer.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            length -= 1
        }
        guard length <= limit else { throw error }
        let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
        buffer.moveReaderIndex(forwardBy: newline + 1)
        return line
    }

    /// Where `byte` first occurs in `buffer`'s readable bytes at or after offset `start`, searched
    /// in place (`memchr`, not an index at a time through `ByteBufferView`).
    private static func offset(of byte: UInt8, in buffer: ByteBuffer, from start: Int) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, CInt(byte), bytes.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Reads the body and its terminating NUL, or returns `nil` if it is incomplete.
    private mutating func readBody(_ buffer: inout ByteBuffer, contentLength: Int?) throws(StompProtocolError) -> ByteBuffer? {
        if let contentLength {
            guard buffer.readableBytes > contentLength else { return nil }
            guard buffer.getInteger(at: buffer.readerIndex + contentLength, as: UInt8.self) == 0 else {
                throw .bodyNotTerminated
            }
            let body = buffer.readSlice(length: contentLength)!
            buffer.moveReaderIndex(forwardBy: 1)
            return body
        }
        guard let length = Self.offset(of: 0, in: buffer, from: scanned) else {
            guard buffer.readableBytes <= limits.maxBodySize else { throw .bodyTooLarge(limit: limits.maxBodySize) }
            scanned = buffer.readableBytes
            return nil
        }
        scanned = 0
        guard length <= limits.maxBodySize else { throw .bodyTooLarge(limit: limits.maxBodySize) }
        let body = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        return body
    }
}
