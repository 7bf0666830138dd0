import NIOCore

/// Joins data frames into messages (RFC 6455 §5.4), inflating and validating as frames arrive.
struct WebSocketMessageAssembler {
    private enum State {
        case idle
        /// A message whose final frame has not arrived; `utf8` has seen all of `data`.
        case assembling(kind: WebSocketMessage.Kind, compressed: Bool, data: ByteBuffer, utf8: UTF8Validator)
    }

    private var state: State = .idle
    /// The largest message accepted, after inflation; bigger ones fail with 1009.
    var maximumMessageLength: Int

    init(maximumMessageLength: Int) {
        self.maximumMessageLength = maximumMessageLength
    }

    /// Adds a text, binary or continuation frame; returns the message its final frame completes.
    mutating func append(
        _ frame: WebSocketFrame,
        deflate: PerMessageDeflate?
    ) throws(WebSocketProtocolError) -> WebSocketMessage? {
        switch (self.state, frame.opcode) {
        case (.idle, .text), (.idle, .binary):
            let kind: WebSocketMessage.Kind = frame.opcode == .text ? .text : .binary
            if frame.fin && !frame.rsv1 {
                // The common case, one uncompressed frame: hand its payload up without copying.
                if kind == .text {
                    var utf8 = UTF8Validator()
                    guard utf8.validate(frame.payload), utf8.isComplete else { throw .invalidUTF8 }
                }
                return WebSocketMessage(kind: kind, data: frame.payload)
            }
            self.state = .assembling(kind: kind, compressed: frame.rsv1, data: ByteBuffer(), utf8: UTF8Validator())
            return try self.appendFragment(frame, deflate: deflate)
        case (.assembling, .continuation):
            return try self.appendFragment(frame, deflate: deflate)
        case (.idle, .continuation):
            throw .protocolError("continuation frame without a message to continue")
        case (.assembling, _):
            throw .protocolError("new message before the previous one ended")
        case (.idle, _):
            preconditionFailure("control frames never reach the assembler")
        }
    }

    private mutating func appendFragment(
        _ frame: WebSocketFrame,
        deflate: PerMessageDeflate?
    ) throws(WebSocketProtocolError) -> WebSocketMessage? {
        guard case .assembling(let kind, let compressed, var data, var utf8) = self.state else { return nil }
        self.state = .idle  // let `data` be uniquely referenced while it grows
        let start = data.writerIndex
        if compressed {
            guard let deflate else { throw .protocolError("compressed message without permessage-deflate") }
            try deflate.inflate(frame.payload, isFinal: frame.fin, into: &data, limit: self.maximumMessageLength)
        } else {
            guard frame.payload.readableBytes <= self.maximumMessageLength - data.readableBytes else {
                throw .messageTooBig
            }
            data.writeImmutableBuffer(frame.payload)
        }
        if kind == .text {
            let isValid = data.withUnsafeReadableBytes { bytes in
                utf8.validate(UnsafeRawBufferPointer(rebasing: bytes[(start - data.readerIndex)...]))
            }
            guard isValid else { throw .invalidUTF8 }
        }
        guard frame.fin else {
            self.state = .assembling(kind: kind, compressed: compressed, data: data, utf8: utf8)
            return nil
        }
        guard kind == .binary || utf8.isComplete else { throw .invalidUTF8 }
        return WebSocketMessage(kind: kind, data: data)
    }
}
