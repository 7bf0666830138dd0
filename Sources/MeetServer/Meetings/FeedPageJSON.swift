import Foundation
import Hummingbird
import MeetCore
import Stomp

/// `GET /meetings` writes its JSON by hand, as bytes: through Foundation's `JSONEncoder` the
/// page took half as long to encode as to find (perf, `docs/ranking.md`), and String appends
/// plus `gmtime_r` per date still took a tenth of a feed request (docs/benchmarks.md). The
/// document is the one `JSONEncoder` writes with ISO 8601 dates, which `FeedPageJSONTests`
/// checks field by field.
extension FeedPage: ResponseGenerator {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ByteBuffer(bytes: jsonBytes)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }
}

extension FeedPage {
    /// The page as UTF-8 JSON.
    var jsonBytes: [UInt8] {
        var json = JSONBytes(reservingCapacity: 128 + 1024 * entries.count)
        json.open()
        json.key("items")
        json.array(entries) { json, item in item.write(to: &json) }
        // The list envelope always names `nextCursor`, null on the last page (docs/conventions.md).
        json.key("nextCursor")
        if let nextCursor { json.string(nextCursor) } else { json.raw("null") }
        json.close()
        return json.bytes
    }
}

extension FeedPage.Item {
    /// Writes the meeting as one JSON object; absent optionals are left out, as `JSONEncoder` does.
    /// All but the distance is written once per reading of the meeting (`PageMeeting.rendered`).
    fileprivate func write(to json: inout JSONBytes) {
        json.openWithFields(shown.rendered { meeting in
            var fields = JSONBytes(reservingCapacity: 1024)
            meeting.writeFields(to: &fields)
            // Kept as long as the reading: an exact copy, not the buffer it grew in (1 KiB at
            // least, up to twice its length), so the page cache's budget counts what it keeps.
            return fields.bytes.withUnsafeBufferPointer { Array($0) }
        })
        json.field("distanceKm", number: distanceKm)
        json.close()
    }
}

extension Meeting {
    /// The object up to its distance, left open.
    fileprivate func writeFields(to json: inout JSONBytes) {
        json.open()
        json.field("id", id)
        json.field("organizerId", organizerId)
        json.field("title", title)
        json.field("description", description)
        json.field("visibility", visibility.rawValue)
        json.field("status", status.rawValue)
        json.field("startsAt", date: startsAt)
        json.field("endsAt", date: endsAt)
        json.field("online", online)
        if let place {
            json.key("place")
            json.open()
            json.field("name", place.name)
            json.field("address", place.address)
            json.field("city", place.city)
            json.field("country", place.country)
            json.field("lat", number: place.lat)
            json.field("lon", number: place.lon)
            json.field("timeZone", place.timeZone)
            json.close()
        }
        if let price {
            json.key("price")
            json.open()
            json.key("amount")
            json.raw(price.amount.description)
            json.field("currency", price.currency)
            json.close()
        }
        if let maxParticipants { json.field("maxParticipants", integer: maxParticipants) }
        json.field("memberCount", integer: memberCount)
        json.field("membersMayInvite", membersMayInvite)
        json.key("activityIds")
        json.array(activityIds) { json, activityId in json.string(activityId) }
        json.field("photoId", photoId)
        json.field("createdAt", date: createdAt)
        json.field("updatedAt", date: updatedAt)
        json.field("revision", integer: revision)
    }
}

/// JSON objects written field by field into one growing byte array.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []
    /// Whether the innermost open object has no field yet (so the next needs no comma).
    private var atObjectStart = false

    init(reservingCapacity capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        atObjectStart = true
    }

    /// Opens an object whose first fields are `fields`, written by another `JSONBytes` from
    /// `open()` on.
    mutating func openWithFields(_ fields: [UInt8]) {
        bytes.append(contentsOf: fields)
        atObjectStart = fields.count <= 1
    }

    mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        atObjectStart = false
    }

    /// Starts a field: `key` is a plain name, written unescaped.
    mutating func key(_ key: StaticString) {
        if !atObjectStart { bytes.append(UInt8(ascii: ",")) }
        atObjectStart = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON array of `elements`, each written by `write`.
    mutating func array<Element>(_ elements: [Element], _ write: (inout JSONBytes, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `text` as it is (already JSON), copied from its UTF-8 storage: byte by byte
    /// through the string's view, keys and nulls were a fifth of writing a chat message's JSON.
    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` as a JSON string literal, escaped as `JSONText.quoted` escapes it.
    mutating func string(_ value: String) {
        // Most text needs no escape: then it is copied whole, scanned and copied through its
        // UTF-8 storage (through the view's iterator the scan was 4 % of a feed page).
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if copied != true { bytes.append(contentsOf: JSONText.quoted(value).utf8) }
    }

    /// A string field; nothing when `value` is `nil`.
    mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        raw(value ? "true" : "false")
    }

    mutating func field(_ name: StaticString, integer value: Int) {
        key(name)
        integer(value)
    }

    /// Shortest round-trip digits, without a trailing `.0`, as `JSONEncoder` writes them;
    /// nothing when `value` is `nil`.
    mutating func field(_ name: StaticString, number value: Double?) {
        guard let value else { return }
        key(name)
        var text = value.description
        let trailingZero = text.hasSuffix(".0")
        text.withUTF8 { utf8 in bytes.append(contentsOf: trailingZero ? utf8.dropLast(2) : utf8[...]) }
    }

    /// RFC 3339 in UTC to the second, as `JSONEncoder`'s `.iso8601` writes it; nothing when
    /// `value` is `nil`.
    mutating func field(_ name: StaticString, date value: Date?) {
        guard let value else { return }
        key(name)
        let seconds = Int(value.timeIntervalSince1970.rounded(.down))
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, time) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let civil = CivilDate(daysSince1970: day)
        bytes.append(UInt8(ascii: "\""))
        integer(civil.year)
        bytes.append(UInt8(ascii: "-"))
        twoDigits(civil.month)
        bytes.append(UInt8(ascii: "-"))
        twoDigits(civil.day)
        bytes.append(UInt8(ascii: "T"))
        twoDigits(time / 3600)
        bytes.append(UInt8(ascii: ":"))
        twoDigits(time / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        twoDigits(time % 60)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func integer(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { digits in
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: digits[(20 - count)...])
        }
    }

    private mutating func twoDigits(_ value: Int) {
        bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}

/// A day of the proleptic Gregorian calendar from its number of days since 1970-01-01, by
/// Howard Hinnant's `civil_from_days` (no time zone, no allocation).
struct CivilDate: Equatable {
    var year: Int
    var month: Int
    var day: Int

    init(daysSince1970 days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }
}
