import Foundation
import Testing
@testable import MeetCore

@Suite struct CalendarTests {
    @Test func aMeetingIsAnEventInItsPlacesTimeZone() async throws {
        let f = try MeetingFixture()
        try f.users("ann")
        var draft = MeetingFixture.draft(title: "Run; then, coffee", place: PlaceInput(query: "Kyiv"))
        draft.description = String(repeating: "Довгий опис. ", count: 12)
        draft.endsAt = MeetingFixture.time(hours: 26)
        let meeting = try await f.service.create(draft, by: "ann")
        let ics = try await f.service.calendar(for: meeting.id, viewer: "ann", link: { "http://host/meetings/\($0)" })
        let lines = ics.components(separatedBy: "\r\n")
        // 2027-01-16 08:00 UTC is 10:00 in Kyiv (UTC+2 in winter).
        #expect(lines.contains("DTSTART;TZID=Europe/Kyiv:20270116T100000"))
        #expect(lines.contains("DTEND;TZID=Europe/Kyiv:20270116T120000"))
        #expect(lines.contains("SUMMARY:Run\\; then\\, coffee"))
        #expect(lines.contains("GEO:50.450000;30.520000"))
        #expect(lines.contains("UID:\(meeting.id)@meetupd"))
        #expect(lines.contains("STATUS:CONFIRMED"))
        #expect(lines.contains("TZOFFSETTO:+0300") && lines.contains("TZOFFSETTO:+0200"))
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.contains { $0.hasPrefix(" ") })

        _ = try await f.service.cancel(meeting.id, by: "ann")
        let cancelled = try await f.service.myCalendar("ann", link: { $0 })
        #expect(cancelled.contains("STATUS:CANCELLED\r\n") && cancelled.contains("SEQUENCE:1\r\n"))
    }
}
