import Foundation
import GRDB

extension MeetingService {
    /// The meeting as an RFC 5545 calendar file. `link` makes the `URL` of an event from a
    /// meeting id.
    public func calendar(for id: String, viewer viewerId: String, link: @Sendable (String) -> String) async throws -> String {
        let meeting = try await database.reader.read { db in try MeetingRecord.visible(id, to: viewerId, in: db).0 }
        return CalendarFile.make([meeting], link: link)
    }

    /// Every meeting of mine (organizing or member) that has not ended yet, cancelled ones
    /// included so that subscribed calendars drop them.
    public func myCalendar(_ userId: String, link: @Sendable (String) -> String) async throws -> String {
        let time = now()
        let meetings = try await database.reader.read { db in
            try MeetingRecord.fetchAll(db, sql: """
                SELECT \(MeetingRecord.columnList) FROM meetingMember JOIN meeting ON meeting.id = meetingMember.meetingId
                WHERE meetingMember.userId = ? AND COALESCE(meeting.endsAt, meeting.startsAt) >= ?
                ORDER BY meeting.startsAt, meeting.id LIMIT 1000
                """, arguments: [userId, time.timeIntervalSince1970])
        }
        return CalendarFile.make(meetings, link: link)
    }
}

/// Meetings as a `VCALENDAR`, times given in each place's own time zone.
enum CalendarFile {
    static func make(_ meetings: [MeetingRecord], link: (String) -> String) -> String {
        var ics = ICalendarText()
        ics.begin("VCALENDAR")
        ics.raw("VERSION", "2.0")
        ics.raw("PRODID", "-//meetupd//meetings//EN")
        ics.raw("CALSCALE", "GREGORIAN")
        let zones = Dictionary(grouping: meetings) { $0.timeZone }
        for (identifier, inZone) in zones.sorted(by: { $0.key < $1.key }) {
            guard let zone = TimeZone(identifier: identifier), identifier != "UTC" else { continue }
            let first = inZone.map(\.startsAt).min()!
            let last = inZone.map { $0.endsAt ?? $0.startsAt }.max()!
            ics.timeZone(zone, covering: DateInterval(start: first - 366 * 86_400, end: last + 86_400))
        }
        for meeting in meetings {
            event(meeting, link: link(meeting.id), into: &ics)
        }
        ics.end("VCALENDAR")
        return ics.text
    }

    private static func event(_ meeting: MeetingRecord, link: String, into ics: inout ICalendarText) {
        ics.begin("VEVENT")
        ics.raw("UID", meeting.id + "@meetupd")
        ics.raw("DTSTAMP", ICalendarText.utc(meeting.updatedAt))
        ics.raw("CREATED", ICalendarText.utc(meeting.createdAt))
        ics.raw("LAST-MODIFIED", ICalendarText.utc(meeting.updatedAt))
        ics.raw("SEQUENCE", String(meeting.revision))
        if let zone = TimeZone(identifier: meeting.timeZone), meeting.timeZone != "UTC" {
            ics.raw("DTSTART;TZID=" + zone.identifier, ICalendarText.local(meeting.startsAt, in: zone))
            if let endsAt = meeting.endsAt { ics.raw("DTEND;TZID=" + zone.identifier, ICalendarText.local(endsAt, in: zone)) }
        } else {
            ics.raw("DTSTART", ICalendarText.utc(meeting.startsAt))
            if let endsAt = meeting.endsAt { ics.raw("DTEND", ICalendarText.utc(endsAt)) }
        }
        ics.text("SUMMARY", meeting.title)
        if !meeting.description.isEmpty { ics.text("DESCRIPTION", meeting.description) }
        if let place = meeting.place {
            let parts = [place.name, place.address, place.city, place.country].filter { !$0.isEmpty }
            var seen = Set<String>()
            let location = parts.filter { seen.insert($0).inserted }.joined(separator: ", ")
            if !location.isEmpty { ics.text("LOCATION", location) }
            ics.raw("GEO", String(format: "%.6f;%.6f", place.lat, place.lon))
        }
        ics.raw("URL", link)
        ics.raw("STATUS", meeting.isCancelled ? "CANCELLED" : "CONFIRMED")
        ics.raw("CLASS", meeting.visibility == .private ? "PRIVATE" : "PUBLIC")
        ics.end("VEVENT")
    }
}
