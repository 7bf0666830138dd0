import MeetCore
import NIOCore

/// Reads a chat SEND's body, `{text, clientMessageId, attachments?, replyToSeq?}`, without
/// `JSONDecoder` when it is written the plain way every client writes it: those four keys at
/// most once each, strings without escapes or control characters, `replyToSeq` a plain
/// non-negative integer, `null` for an absent optional (`text` may be left out, for a photo
/// alone). Anything else (an escape, another key, a fraction, invalid UTF-8, no
/// `clientMessageId`, malformed JSON) answers nil, and the
/// caller decodes the body with `JSONDecoder` as before, so every body gets the draft or the
/// refusal it got from `JSONDecoder` alone (`ChatDraftJSONTests` compares them). The decoder
/// cost ~5 µs of every post, a tenth of its event-loop work.
enum ChatDraftJSON {
    /// The draft in `body`, or nil when it is not written the plain way.
    static func draft(from body: ByteBuffer) -> ChatDraft? {
        body.withUnsafeReadableBytes { bytes in
            var reader = PlainJSONReader(bytes: bytes)
            return reader.draft()
        }
    }
}

/// A cursor over a JSON text that reads only the plain forms ``ChatDraftJSON`` accepts and
/// gives up (nil) at anything else.
private struct PlainJSONReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The draft's four keys.
    private enum Field: CaseIterable {
        case text, clientMessageId, attachments, replyToSeq

        var name: StaticString {
            switch self {
            case .text: "text"
            case .clientMessageId: "clientMessageId"
            case .attachments: "attachments"
            case .replyToSeq: "replyToSeq"
            }
        }
    }

    mutating func draft() -> ChatDraft? {
        var text: String?
        var clientMessageId: String?
        var attachments: [String]?
        var replyToSeq: Int64?
        var seen: [Field] = []
        guard take("{") else { return nil }
        if !take("}") {
            repeat {
                guard let field = field(), !seen.contains(field), take(":") else { return nil }
                seen.append(field)
                switch field {
                case .text:
                    guard let value = string() else { return nil }
                    text = value
                case .clientMessageId:
                    guard let value = string() else { return nil }
                    clientMessageId = value
                case .attachments:
                    if !take("null") {
                        guard let list = strings() else { return nil }
                        attachments = list
                    }
                case .replyToSeq:
                    if !take("null") {
                        guard let seq = integer() else { return nil }
                        replyToSeq = seq
                    }
                }
            } while take(",")
            guard take("}") else { return nil }
        }
        skipSpace()
        guard index == bytes.count, let clientMessageId else { return nil }
        return ChatDraft(text: text ?? "", clientMessageId: clientMessageId, attachments: attachments, replyToSeq: replyToSeq)
    }

    /// One of the four keys, written plainly (no escapes), with its quotes.
    private mutating func field() -> Field? {
        let start = index
        for field in Field.allCases {
            index = start
            if take("\""), match(field.name), index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return field
            }
        }
        index = start
        return nil
    }

    /// Skips JSON white space, then takes `token` if it comes next.
    private mutating func take(_ token: StaticString) -> Bool {
        skipSpace()
        return match(token)
    }

    /// Takes `token` if it comes next, right here.
    private mutating func match(_ token: StaticString) -> Bool {
        let count = token.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != token.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// A string with neither escapes nor control characters, valid UTF-8.
    private mutating func string() -> String? {
        guard take("\"") else { return nil }
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1])
                // ASCII is valid UTF-8 as it is: made into a string without the validation's
                // generic walk (two fifths of reading a chat post's body).
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            ascii = ascii && byte < 0x80
            index += 1
        }
        return nil
    }

    /// `[]` or an array of plain strings.
    private mutating func strings() -> [String]? {
        guard take("[") else { return nil }
        var list: [String] = []
        if take("]") { return list }
        repeat {
            guard let item = string() else { return nil }
            list.append(item)
        } while take(",")
        return take("]") ? list : nil
    }

    /// `0` or a positive integer of at most 18 digits (always an `Int64`), not followed by a
    /// fraction or an exponent.
    private mutating func integer() -> Int64? {
        skipSpace()
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        let digits = index - start
        guard digits >= 1, digits <= 18, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
        var value: Int64 = 0
        for offset in start..<index { value = value * 10 + Int64(bytes[offset] - UInt8(ascii: "0")) }
        return value
    }
}
