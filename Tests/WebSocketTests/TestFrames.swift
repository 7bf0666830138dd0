import NIOCore
@_spi(Tooling) @testable import WebSocket

/// Builds frames the way a client sends them (masked unless told otherwise).
struct ClientFrame {
    var fin = true
    var rsv: UInt8 = 0
    var opcode: UInt8
    var payload: [UInt8]
    var mask: [UInt8]? = [0x37, 0xFA, 0x21, 0x3D]

    static func text(_ string: String, fin: Bool = true) -> ClientFrame {
        ClientFrame(fin: fin, opcode: 0x1, payload: Array(string.utf8))
    }
    static func binary(_ bytes: [UInt8], fin: Bool = true) -> ClientFrame {
        ClientFrame(fin: fin, opcode: 0x2, payload: bytes)
    }
    static func continuation(_ bytes: [UInt8], fin: Bool = true) -> ClientFrame {
        ClientFrame(fin: fin, opcode: 0x0, payload: bytes)
    }
    static func ping(_ bytes: [UInt8] = []) -> ClientFrame { ClientFrame(opcode: 0x9, payload: bytes) }
    static func pong(_ bytes: [UInt8] = []) -> ClientFrame { ClientFrame(opcode: 0xA, payload: bytes) }
    static func close(code: UInt16? = nil, reason: [UInt8] = []) -> ClientFrame {
        var payload = [UInt8]()
        if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] }
        return ClientFrame(opcode: 0x8, payload: payload + reason)
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch payload.count {
        case 0...125: out.append(maskBit | UInt8(payload.count))
        case 126...65535: out += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            out.append(maskBit | 127)
            out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64($0))) }
        }
        guard let mask else { return out + payload }
        return out + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    var buffer: ByteBuffer { ByteBuffer(bytes: self.bytes) }
}

/// A frame as the server wrote it.
struct ServerFrame: Equatable {
    var fin: Bool
    var rsv1: Bool
    var opcode: UInt8
    var payload: [UInt8]

    var closeCode: UInt16? {
        guard opcode == 0x8, payload.count >= 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// Splits everything the server wrote into frames; server frames are never masked.
    static func parseAll(_ buffer: ByteBuffer) -> [ServerFrame] {
        var bytes = Array(buffer.readableBytesView)
        var frames = [ServerFrame]()
        while bytes.count >= 2 {
            var length = Int(bytes[1] & 0x7F)
            var offset = 2
            if length == 126 {
                length = Int(bytes[2]) << 8 | Int(bytes[3])
                offset = 4
            } else if length == 127 {
                length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            precondition(bytes[1] & 0x80 == 0, "server frames must not be masked")
            frames.append(
                ServerFrame(
                    fin: bytes[0] & 0x80 != 0,
                    rsv1: bytes[0] & 0x40 != 0,
                    opcode: bytes[0] & 0x0F,
                    payload: Array(bytes[offset..<offset + length])
                )
            )
            bytes.removeFirst(offset + length)
        }
        return frames
    }
}

/// A small deterministic generator (SplitMix64) so property tests replay exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { self.state = seed }
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
