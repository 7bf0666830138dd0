/// What the service accepts as an e-mail address: exactly one RFC 5322 `addr-spec` in its
/// dot-atom form, ASCII only, so that it can go into a `To:` header or an SMTP `RCPT TO`
/// as it is. No display name, no comment, no quoted local part, no address literal, no comma
/// or control character: each of those is how one field becomes a second recipient or header.
public enum EmailAddress {
    /// Whether `text` is one such address (at most 254 bytes, local part at most 64).
    public static func isValid(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard text.utf8.count <= 254, parts.count == 2, (1...64).contains(parts[0].count) else { return false }
        return isDotAtom(parts[0]) && isDomain(parts[1])
    }

    /// `atext` runs separated by single dots.
    static func isDotAtom(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        let atoms = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return atoms.allSatisfy { atom in !atom.isEmpty && atom.allSatisfy(isAtext) }
    }

    /// Two or more LDH labels of 1–63 bytes, none starting or ending with a hyphen; the last
    /// one not all digits.
    static func isDomain(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last, !last.allSatisfy(isDigit) else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
        }
    }

    static func isAtext(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || "!#$%&'*+-/=?^_`{|}~".utf8.contains(byte)
    }

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
