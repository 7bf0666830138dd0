import Foundation

extension ICalendarText {
    /// A `VTIMEZONE` for `zone` over `interval`: one observance for the offset in force at
    /// its start, then one per change of offset inside it, as Foundation's time zone data
    /// has them. Explicit dates rather than rules, so that the file says exactly what the
    /// server knows.
    mutating func timeZone(_ zone: TimeZone, covering interval: DateInterval) {
        begin("VTIMEZONE")
        raw("TZID", zone.identifier)
        let startOffset = zone.secondsFromGMT(for: interval.start)
        observance(zone, at: interval.start, from: startOffset, to: startOffset)
        var cursor = interval.start
        while let change = zone.nextDaylightSavingTimeTransition(after: cursor), change < interval.end {
            observance(zone, at: change, from: zone.secondsFromGMT(for: change - 1), to: zone.secondsFromGMT(for: change))
            cursor = change
        }
        end("VTIMEZONE")
    }

    private mutating func observance(_ zone: TimeZone, at moment: Date, from: Int, to: Int) {
        let kind = zone.isDaylightSavingTime(for: moment) ? "DAYLIGHT" : "STANDARD"
        begin(kind)
        // DTSTART of an observance is the local time under the offset it replaces.
        raw("DTSTART", Self.local(moment, in: TimeZone(secondsFromGMT: from)!))
        raw("TZOFFSETFROM", Self.offset(from))
        raw("TZOFFSETTO", Self.offset(to))
        if let name = zone.abbreviation(for: moment) { text("TZNAME", name) }
        end(kind)
    }

    /// `+0200`, `-0330`
    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + String(format: "%02d%02d", minutes / 60, minutes % 60)
    }
}
