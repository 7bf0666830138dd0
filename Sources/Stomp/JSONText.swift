/// The one JSON string escaper for JSON written by hand (STOMP refusal bodies, the feed's
/// pages), so that both say the same thing for the same text.
public enum JSONText {
    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped
    /// (the short forms where JSON has them, `\u00XX` otherwise); everything else, `/` and
    /// non-ASCII included, as it is, as `JSONEncoder` writes with `.withoutEscapingSlashes`.
    public static func quoted(_ value: String) -> String {
        // Most text needs no escape: then it is copied whole.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return "\"" + value + "\""
        }
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
