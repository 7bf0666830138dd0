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

    /// Pages write a reading of a meeting once (`PageMeeting.rendered`): the same reading
    /// elsewhere is not written again, with each page's own distance; another reading of the
    /// same meeting (as after a change) is written afresh.
    @Test func writesEachReadingOnce() throws {
        var writes = 0
        func bytes(_ page: FeedPage) -> [UInt8] {
            var json = JSONBytes(reservingCapacity: 0)
            json.array(page.entries) { json, item in
                json.openWithFields(item.shown.rendered { meeting in
                    writes += 1
                    return Array("{\"title\":\"\(meeting.title)\"".utf8)
                })
                json.field("distanceKm", number: item.distanceKm)
                json.close()
            }
            return json.bytes
        }
        var meeting = Self.full
        let first = FeedPage(items: [meeting], nextCursor: nil)
        #expect(String(decoding: bytes(first), as: UTF8.self) == #"[{"title":"\#(meeting.title)","distanceKm":0.123456789}]"#)
        let elsewhere = FeedPage(entries: [FeedPage.Item(shown: first.entries[0].shown, distanceKm: 7)], nextCursor: nil)
        #expect(String(decoding: bytes(elsewhere), as: UTF8.self) == #"[{"title":"\#(meeting.title)","distanceKm":7}]"#)
        #expect(writes == 1)
        meeting.title = "Go"
        let changed = FeedPage(items: [meeting], nextCursor: nil)
        #expect(String(decoding: bytes(changed), as: UTF8.self) == #"[{"title":"Go","distanceKm":0.123456789}]"#)
        #expect(writes == 2)
        #expect(String(decoding: bytes(first), as: UTF8.self) == #"[{"title":"\#(Self.full.title)","distanceKm":0.123456789}]"#)
        #expect(writes == 2)
    }

    /// A page written from a kept text says what `JSONEncoder` says, at its own distance.
    @Test func writesAKeptReadingAsJSONEncoderDoes() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let first = FeedPage(items: [Self.full, Self.bare], nextCursor: "abc.20")
        let later = FeedPage(
            entries: [FeedPage.Item(shown: first.entries[1].shown, distanceKm: 3), FeedPage.Item(shown: first.entries[0].shown, distanceKm: nil)],
            nextCursor: nil)
        for page in [first, later, first] {
            #expect(try parsed(Data(page.jsonBytes)) == parsed(encoder.encode(page)))
        }
    }
}
