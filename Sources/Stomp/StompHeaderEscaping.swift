import NIOCore

/// Header value escaping (STOMP 1.1 and 1.2 "Value Encoding"). STOMP 1.0 has none, 1.1 escapes
/// backslash, line feed and colon, 1.2 adds carriage return; CONNECT, STOMP and CONNECTED never escape.
enum StompHeaderEscaping {
    private static let backslash = UInt8(ascii: "\\")

    /// Decodes a header name or value read from the wire.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, version: StompVersion, escaped: Bool) throws(StompProtocolError) -> String {
        guard escaped, version != .v1_0, bytes.contains(backslash) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte == backslash else {
                out.append(byte)
                continue
            }
            switch iterator.next() {
            case UInt8(ascii: "\\"): out.append(backslash)
            case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "c"): out.append(UInt8(ascii: ":"))
            case UInt8(ascii: "r") where version == .v1_2: out.append(UInt8(ascii: "\r"))
            default: throw .invalidEscape
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text`, as a header name or value, is written other than as it is.
    static func needsEscaping(_ text: String, version: StompVersion, escaped: Bool) -> Bool {
        escaped && version != .v1_0 && text.utf8.contains(where: needsEscape)
    }

    /// Writes a header name or value, escaped as `version` requires.
    static func write(_ text: String, version: StompVersion, escaped: Bool, into buffer: inout ByteBuffer) {
        guard needsEscaping(text, version: version, escaped: escaped) else {
            buffer.writeString(text)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case backslash: buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: ":"): buffer.writeStaticString("\\c")
            case UInt8(ascii: "\r") where version == .v1_2: buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == backslash || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\r")
    }
}
