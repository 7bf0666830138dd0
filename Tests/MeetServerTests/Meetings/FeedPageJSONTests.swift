import Foundation
import Testing
@testable import MeetCore
@testable import MeetServer

/// The feed's hand-written JSON says what `JSONEncoder` (as the routes configure it) says.
@Suite struct FeedPageJSONTests {
    static let full = Meeting(
        id: "m1", organizerId: "u/1", title: "Chess \"blitz\" \\ night\n\t/ — Київ 🎲 \u{1}\u{1F}",
        description: "", visibility: .public, status: .cancelled,
        startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_800_003_600.75),
        online: false,
        place: Place(name: "Maidan", address: "Khreshchatyk 1", city: "Kyiv", country: "Ukraine", lat: 50.45, lon: -30.0, timeZone: "Europe/Kyiv"),
        price: Price(amount: Decimal(string: "12.50")!, currency: "UAH"), maxParticipants: 10, memberCount: 3,
        membersMayInvite: true, activityIds: ["chess", "board-games"], photoId: "p1",
        createdAt: Date(timeIntervalSince1970: 1_700_000_000.999), updatedAt: Date(timeIntervalSince1970: 946_684_800),
        revision: 2, distanceKm: 0.123456789)

    static let bare = Meeting(
        id: "m2", organizerId: "u2", title: "Online", description: "d", visibility: .private, status: .scheduled,
        startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: nil, online: true, place: nil, price: nil,
        maxParticipants: nil, memberCount: 1, membersMayInvite: false, activityIds: [], photoId: nil,
        createdAt: Date(timeIntervalSince1970: 1_800_000_000), updatedAt: Date(timeIntervalSince1970: 1_800_000_000),
        revision: 0, distanceKm: 10)

    func parsed(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test(arguments: [
        FeedPage(items: [full, bare], nextCursor: "abc.20"),
        FeedPage(items: [], nextCursor: nil),
    ])
    func writesWhatJSONEncoderWrites(page: FeedPage) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let expected = try parsed(encoder.encode(page))
        let written = try parsed(Data(page.jsonBytes))
        #expect(written == expected, "\(String(decoding: page.jsonBytes, as: UTF8.self))")
    }

    /// Dates are written without the C library or Foundation: check the calendar arithmetic
    /// against `JSONEncoder` across leap days, century years and times before 1970.
    @Test(arguments: [
        -86_401.5, -1, 0, 59, 951_782_399, 951_782_400, 951_868_800, 1_709_164_800, 4_107_542_399, 4_107_542_400,
        4_102_444_799, 253_402_300_799,
    ] as [Double])
    func writesDatesAsJSONEncoderDoes(seconds: Double) throws {
        var meeting = Self.bare
        meeting.startsAt = Date(timeIntervalSince1970: seconds)
        let page = FeedPage(items: [meeting], nextCursor: nil)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(try parsed(Data(page.jsonBytes)) == parsed(encoder.encode(page)))
    }

    /// Pages write meetings seen lately from `RenderedMeetings`: a meeting changed in any
    /// field is written afresh, and the distance is each page's own.
    @Test func writesAChangedMeetingAfresh() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var meeting = Self.full
        meeting.id = "written-twice"
        for change in [{ (m: inout Meeting) in m.memberCount += 1 }, { $0.distanceKm = 7 }, { $0.price = nil }, { $0.title = "Go" }] {
            let before = FeedPage(items: [meeting], nextCursor: nil)
            #expect(try parsed(Data(before.jsonBytes)) == parsed(encoder.encode(before)))
            change(&meeting)
            let after = FeedPage(items: [meeting], nextCursor: nil)
            #expect(try parsed(Data(after.jsonBytes)) == parsed(encoder.encode(after)))
        }
    }

    /// Texts of 10 bytes here: two fit the budget, a third starts the store afresh.
    @Test func keepsWhatItWroteUpToItsBudget() {
        let rendered = RenderedMeetings(byteBudget: 25)
        var writes = 0
        func json(_ meeting: Meeting) -> [UInt8] {
            rendered.json(of: meeting) { _ in
                writes += 1
                return Array("{\"id\":\"\(meeting.id)\"".utf8)
            }
        }
        var other = Self.bare
        other.distanceKm = 3
        _ = json(Self.bare)
        _ = json(other)  // the same meeting elsewhere
        #expect(writes == 1)
        other.memberCount += 1
        _ = json(other)
        #expect(writes == 2)
        _ = json(Self.full)
        var third = Self.full
        third.id = "m3"
        _ = json(third)  // past its budget: the store starts afresh
        _ = json(other)
        #expect(writes == 5)
    }
}
