import NIOCore

/// The 4-byte masking key of a client frame (RFC 6455 §5.3).
struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key bytes in wire order, packed big-endian.
    var value: UInt32

    /// The key byte that masks payload position `position`.
    func byte(at position: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: self.value >> UInt32(24 - 8 * (position & 3)))
    }

    /// XORs `bytes` with the key, 8 bytes at a time; `offset` is the position of `bytes[0]`
    /// within the frame's payload, so a payload can be unmasked in pieces.
    func unmask(_ bytes: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = bytes.baseAddress else { return }
        // The key rotated so that its first byte lines up with bytes[0], then doubled into a
        // word: one load, one XOR and one store per 8 bytes on the hot path.
        let shift = UInt32((offset & 3) * 8)
        let rotated = shift == 0 ? self.value : (self.value << shift) | (self.value >> (32 - shift))
        let bigEndianWord = UInt64(rotated) << 32 | UInt64(rotated)
        let word = UInt64(bigEndian: bigEndianWord)
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let chunk = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: chunk ^ word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            bytes[index] ^= self.byte(at: offset + index)
            index += 1
        }
    }
}

extension ByteBuffer {
    /// Unmasks the first `length` readable bytes in place.
    mutating func unmaskReadableBytes(length: Int, with key: WebSocketMaskingKey) {
        self.withUnsafeMutableReadableBytes { bytes in
            key.unmask(UnsafeMutableRawBufferPointer(rebasing: bytes[..<length]))
        }
    }
}
