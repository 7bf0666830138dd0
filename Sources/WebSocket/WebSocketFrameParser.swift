import NIOCore

/// Reads client frames off a byte stream that may be split anywhere.
///
/// Every header rule is checked as soon as the bytes that carry it arrive, so a bad or
/// oversized frame is refused before any of its payload is buffered.
struct WebSocketFrameParser: Sendable {
    /// A parsed header whose payload has not fully arrived yet.
    struct Header: Sendable, Hashable {
        var fin: Bool
        var rsv1: Bool
        var opcode: WebSocketOpcode
        var length: Int
        var maskingKey: WebSocketMaskingKey
    }

    private enum State: Sendable, Hashable {
        case awaitingHeader
        case awaitingPayload(Header)
    }

    private var state: State = .awaitingHeader
    /// The largest frame payload accepted; bigger frames fail with 1009.
    var maximumPayloadLength: Int
    /// Whether RSV1 may be set (permessage-deflate was negotiated).
    let allowsCompressedMessages: Bool

    init(maximumPayloadLength: Int, allowsCompressedMessages: Bool) {
        self.maximumPayloadLength = maximumPayloadLength
        self.allowsCompressedMessages = allowsCompressedMessages
    }

    /// The payload bytes still needed to finish the current frame, 0 between frames.
    var pendingPayloadLength: Int {
        if case .awaitingPayload(let header) = self.state { return header.length }
        return 0
    }

    /// Consumes the next complete frame from `buffer`, or returns `nil` and keeps the
    /// incomplete bytes in `buffer` for later.
    mutating func nextFrame(from buffer: inout ByteBuffer) throws(WebSocketProtocolError) -> WebSocketFrame? {
        if case .awaitingHeader = self.state {
            guard let header = try self.readHeader(from: &buffer) else { return nil }
            self.state = .awaitingPayload(header)
        }
        guard case .awaitingPayload(let header) = self.state,
            buffer.readableBytes >= header.length
        else { return nil }
        buffer.unmaskReadableBytes(length: header.length, with: header.maskingKey)
        let payload = buffer.readSlice(length: header.length)!
        self.state = .awaitingHeader
        return WebSocketFrame(fin: header.fin, rsv1: header.rsv1, opcode: header.opcode, payload: payload)
    }

    /// Parses a header without consuming anything until all of it is there.
    private func readHeader(from buffer: inout ByteBuffer) throws(WebSocketProtocolError) -> Header? {
        guard let (first, second) = buffer.getMultipleIntegers(at: buffer.readerIndex, as: (UInt8, UInt8).self)
        else { return nil }
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .protocolError("reserved bits set") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("unknown opcode")
        }
        guard second & 0x80 != 0 else { throw .protocolError("client frames must be masked") }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else { throw .protocolError("fragmented control frame") }
            guard shortLength <= 125 else { throw .protocolError("control frame too long") }
        }
        if rsv1 && (!self.allowsCompressedMessages || opcode.isControl || opcode == .continuation) {
            throw .protocolError("RSV1 set without permessage-deflate on a first data frame")
        }

        var offset = buffer.readerIndex + 2
        let length: Int
        switch shortLength {
        case 126:
            guard let extended = buffer.getInteger(at: offset, as: UInt16.self) else { return nil }
            length = Int(extended)
            offset += 2
        case 127:
            guard let extended = buffer.getInteger(at: offset, as: UInt64.self) else { return nil }
            guard extended & (1 << 63) == 0 else { throw .protocolError("64-bit length with top bit set") }
            guard extended <= UInt64(self.maximumPayloadLength) else { throw .messageTooBig }
            length = Int(extended)
            offset += 8
        default:
            length = shortLength
        }
        guard length <= self.maximumPayloadLength else { throw .messageTooBig }
        guard let key = buffer.getInteger(at: offset, as: UInt32.self) else { return nil }
        buffer.moveReaderIndex(to: offset + 4)
        return Header(fin: fin, rsv1: rsv1, opcode: opcode, length: length, maskingKey: WebSocketMaskingKey(value: key))
    }
}
