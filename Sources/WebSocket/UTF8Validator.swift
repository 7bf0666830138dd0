import NIOCore

/// Validates UTF-8 incrementally, across any split of the input, and says so at the first
/// byte that can no longer start or continue a valid sequence (RFC 3629).
struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected for the current code point.
    private var remaining: UInt8 = 0
    /// The range the next continuation byte must fall into; narrower than 0x80...0xBF right
    /// after the lead bytes that would otherwise allow overlongs, surrogates or > U+10FFFF.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the input so far ends on a code point boundary.
    var isComplete: Bool { self.remaining == 0 }

    /// Feeds more bytes; returns `false` as soon as the input cannot be valid UTF-8.
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            if self.remaining == 0, let base = bytes.baseAddress {
                // ASCII runs: 8 bytes per step while no byte has its top bit set.
                while index + 8 <= count,
                    base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                if index == count { break }
            }
            guard self.consume(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// Feeds the readable bytes of `buffer`.
    mutating func validate(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { self.validate($0) }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        if self.remaining > 0 {
            guard byte >= self.lower && byte <= self.upper else { return false }
            self.remaining -= 1
            self.lower = 0x80
            self.upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: self.remaining = 1
        case 0xE0: self.remaining = 2; self.lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: self.remaining = 2
        case 0xED: self.remaining = 2; self.upper = 0x9F
        case 0xF0: self.remaining = 3; self.lower = 0x90
        case 0xF1...0xF3: self.remaining = 3
        case 0xF4: self.remaining = 3; self.upper = 0x8F
        default: return false
        }
        return true
    }
}
