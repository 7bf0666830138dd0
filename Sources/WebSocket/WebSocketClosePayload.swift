import NIOCore

/// The body of a close frame: an optional status code and a UTF-8 reason (RFC 6455 §5.5.1).
enum WebSocketClosePayload {
    /// Control frames carry at most 125 bytes, two of which are the code.
    static let maximumReasonLength = 123

    /// Reads a peer's close payload; a 1-byte body, a code that may not be sent, or a reason
    /// that is not UTF-8 is a protocol error.
    static func parse(_ payload: ByteBuffer) throws(WebSocketProtocolError) -> WebSocketClosed {
        var payload = payload
        guard payload.readableBytes > 0 else { return WebSocketClosed(code: .noStatusReceived) }
        guard let raw = payload.readInteger(as: UInt16.self) else {
            throw .protocolError("close payload of one byte")
        }
        let code = WebSocketCloseCode(rawValue: raw)
        guard code.isValidOnTheWire else { throw .protocolError("invalid close code \(raw)") }
        var utf8 = UTF8Validator()
        guard utf8.validate(payload), utf8.isComplete else { throw .protocolError("close reason is not UTF-8") }
        return WebSocketClosed(code: code, reason: String(buffer: payload))
    }

    /// Builds a close payload, cutting the reason at a code point boundary to fit the frame.
    static func make(code: WebSocketCloseCode, reason: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(2 + min(reason.utf8.count, self.maximumReasonLength))
        buffer.writeInteger(code.rawValue)
        var room = self.maximumReasonLength
        for scalar in reason.unicodeScalars {
            let encoded = String(scalar).utf8
            guard encoded.count <= room else { break }
            room -= encoded.count
            buffer.writeBytes(encoded)
        }
        return buffer
    }
}
