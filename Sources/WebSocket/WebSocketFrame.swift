import NIOCore

/// One frame, as read from a client (already unmasked) or as written by the server.
struct WebSocketFrame: Sendable, Hashable {
    /// The last frame of a message.
    var fin: Bool
    /// RSV1: "this message is compressed" under permessage-deflate.
    var rsv1: Bool
    /// What the payload is.
    var opcode: WebSocketOpcode
    /// The payload, unmasked.
    var payload: ByteBuffer

    init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: ByteBuffer) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }
}

extension WebSocketFrame {
    /// The most bytes a server frame header takes: 2 + 8-byte length, never masked.
    static let maximumServerHeaderSize = 10

    /// The bytes ``writeServerHeader(fin:rsv1:opcode:length:into:)`` writes for `length`.
    static func serverHeaderSize(length: Int) -> Int {
        switch length {
        case 0...125: 2
        case 126...Int(UInt16.max): 4
        default: 10
        }
    }

    /// Writes the header of an unmasked server frame for a payload of `length` bytes.
    static func writeServerHeader(
        fin: Bool,
        rsv1: Bool,
        opcode: WebSocketOpcode,
        length: Int,
        into buffer: inout ByteBuffer
    ) {
        let first = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
        switch length {
        case 0...125:
            buffer.writeMultipleIntegers(first, UInt8(length))
        case 126...Int(UInt16.max):
            buffer.writeMultipleIntegers(first, UInt8(126), UInt16(length))
        default:
            buffer.writeMultipleIntegers(first, UInt8(127), UInt64(length))
        }
    }

    /// Writes this frame (header and payload) as the server sends it.
    func write(into buffer: inout ByteBuffer) {
        Self.writeServerHeader(
            fin: self.fin,
            rsv1: self.rsv1,
            opcode: self.opcode,
            length: self.payload.readableBytes,
            into: &buffer
        )
        buffer.writeImmutableBuffer(self.payload)
    }
}
