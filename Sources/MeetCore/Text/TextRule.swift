/// What free text a user sends may contain and how long it may be, checked the same way for
/// every field.
///
/// Lengths count Unicode scalars and UTF-8 bytes, never grapheme clusters: one "character"
/// of combining marks can be any size, so counting characters bounds nothing. Control
/// characters are refused because the text goes into mails, push payloads and other people's
/// screens: a line break in a name forges mail lines, a bidi override reverses what a reader
/// sees, and a NUL cuts the text where C code reads it.
public struct TextRule: Sendable {
    /// Whether line feeds (LF only) are allowed.
    public enum Shape: Sendable {
        /// Names, titles, cities: no line breaks at all.
        case oneLine
        /// Bios, descriptions, chat messages: LF allowed, no other control character.
        case multiLine
    }

    /// Whether line feeds are allowed.
    public var shape: Shape
    /// At most this many Unicode scalars.
    public var maximumScalars: Int
    /// At most this many UTF-8 bytes: three per scalar, so any text in the Basic Multilingual
    /// Plane fits in full, while a scalar limit's worth of four-byte emoji does not.
    public var maximumBytes: Int { maximumScalars * 3 }

    /// A rule for text of `shape`, at most `maximumScalars` scalars (and three bytes per scalar).
    public init(_ shape: Shape, maximumScalars: Int) {
        self.shape = shape
        self.maximumScalars = maximumScalars
    }

    /// The field code for what is wrong with `text` (`field.invalidCharacters` or
    /// `field.tooLong`), or `nil` when it passes.
    public func problem(with text: String) -> String? {
        if refusesCharacters(in: text) { return "field.invalidCharacters" }
        if text.unicodeScalars.count > maximumScalars || text.utf8.count > maximumBytes { return "field.tooLong" }
        return nil
    }

    /// The field problem for `text` in `field`, with the maximum as the detail's argument.
    public func fieldProblem(with text: String, field: String) -> MeetError.FieldProblem? {
        problem(with: text).map { code in
            MeetError.FieldProblem(field: field, code: code, arguments: code == "field.tooLong" ? ["maximum": String(maximumScalars)] : [:])
        }
    }

    /// Whether `text` holds a character this shape of field refuses.
    public func refusesCharacters(in text: String) -> Bool {
        // ASCII bytes are their own scalars: text read so far as bytes needs no decoding, and
        // one refused byte answers for the whole text.
        let asciiAnswer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if byte == UInt8(ascii: "\n") ? shape == .oneLine : Self.isRefused(Unicode.Scalar(byte)) { return true }
            }
            return false
        }
        if let asciiAnswer = asciiAnswer ?? nil { return asciiAnswer }
        return text.unicodeScalars.contains { scalar in scalar == "\n" ? shape == .oneLine : Self.isRefused(scalar) }
    }

    /// C0 and C1 controls and DEL, the bidi embeddings, overrides and isolates, and the
    /// Unicode line and paragraph separators.
    static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }
}
