import Foundation

/// Writes RFC 5545 content lines: CRLF endings, TEXT escaping, lines folded at 75 octets
/// without splitting a UTF-8 character.
struct ICalendarText {
    private(set) var text = ""

    /// A property whose value is already in its iCalendar form (dates, numbers, URIs).
    mutating func raw(_ name: String, _ value: String) {
        fold(name + ":" + value)
    }

    /// A TEXT property, escaped.
    mutating func text(_ name: String, _ value: String) {
        raw(name, Self.escape(value))
    }

    mutating func begin(_ component: String) { raw("BEGIN", component) }
    mutating func end(_ component: String) { raw("END", component) }

    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n": escaped += "\\n"
            case "\r": break
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `20261201T180000Z`
    static func utc(_ date: Date) -> String {
        local(date, in: TimeZone(identifier: "UTC")!) + "Z"
    }

    /// `20261201T180000`, the wall-clock time in `zone`.
    static func local(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    private mutating func fold(_ line: String) {
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            // Continuation lines start with a space, which counts towards their 75.
            if octets + size > 75 {
                text += "\r\n "
                octets = 1
            }
            text.unicodeScalars.append(scalar)
            octets += size
        }
        text += "\r\n"
    }
}
