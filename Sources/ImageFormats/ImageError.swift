/// Why bytes were not taken as an image.
public enum ImageError: Error, Sendable, Equatable {
    /// Not JPEG, PNG or WebP by its first bytes.
    case unrecognized
    /// The file ends before the image does.
    case truncated
    /// The structure breaks the format's rules; the text says where, for logs and fuzzing.
    case malformed(String)
    /// The pixels cannot be decoded (a codec refused them); the text is the codec's.
    case undecodable(String)
}

/// Where a parser reads: bounds-checked big- and little-endian integers over the whole file.
struct ByteReader {
    let bytes: [UInt8]

    /// Throws ``ImageError/truncated`` unless `count` bytes exist from `offset`.
    func need(_ offset: Int, _ count: Int) throws {
        guard offset >= 0, count >= 0, offset <= bytes.count - count else { throw ImageError.truncated }
    }

    func uint16BE(_ offset: Int) throws -> Int {
        try need(offset, 2)
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    func uint32BE(_ offset: Int) throws -> Int {
        try need(offset, 4)
        return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    func uint16LE(_ offset: Int) throws -> Int {
        try need(offset, 2)
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    func uint24LE(_ offset: Int) throws -> Int {
        try need(offset, 3)
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
    }

    func uint32LE(_ offset: Int) throws -> Int {
        try need(offset, 4)
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    /// Whether the bytes at `offset` are `text` (ASCII), without throwing when the file is shorter.
    func has(_ text: String, at offset: Int) -> Bool {
        let expected = Array(text.utf8)
        return offset >= 0 && offset <= bytes.count - expected.count && Array(bytes[offset..<offset + expected.count]) == expected
    }
}
