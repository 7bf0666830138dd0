/// The frame opcodes of RFC 6455 §5.2; the reserved ones are refused by the parser.
enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) may interleave with fragments but never be fragmented.
    var isControl: Bool { self.rawValue & 0x8 != 0 }
}
