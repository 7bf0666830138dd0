import Foundation
import Hummingbird
import MeetCore
import Stomp

/// `GET /meetings` writes its JSON by hand: through Foundation's `JSONEncoder` the page took
/// half as long to encode as to find (perf, `docs/ranking.md`). The document is the one
/// `JSONEncoder` writes with ISO 8601 dates, which `FeedPageJSONTests` checks field by field.
extension FeedPage: ResponseGenerator {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ByteBuffer(string: jsonText)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }
}

extension FeedPage {
    var jsonText: String {
        var page = JSONObjectText()
        page.raw("items", "[" + items.map(\.jsonText).joined(separator: ",") + "]")
        // The list envelope always names `nextCursor`, null on the last page (docs/conventions.md).
        page.raw("nextCursor", nextCursor.map(JSONText.quoted) ?? "null")
        return page.closed
    }
}

extension Meeting {
    /// The meeting as one JSON object; absent optionals are left out, as `JSONEncoder` does.
    var jsonText: String {
        var json = JSONObjectText()
        json.string("id", id)
        json.string("organizerId", organizerId)
        json.string("title", title)
        json.string("description", description)
        json.string("visibility", visibility.rawValue)
        json.string("status", status.rawValue)
        json.date("startsAt", startsAt)
        json.date("endsAt", endsAt)
        json.raw("online", online ? "true" : "false")
        if let place {
            var text = JSONObjectText()
            text.string("name", place.name)
            text.string("address", place.address)
            text.string("city", place.city)
            text.string("country", place.country)
            text.number("lat", place.lat)
            text.number("lon", place.lon)
            text.string("timeZone", place.timeZone)
            json.raw("place", text.closed)
        }
        if let price {
            var text = JSONObjectText()
            text.raw("amount", price.amount.description)
            text.string("currency", price.currency)
            json.raw("price", text.closed)
        }
        json.raw("maxParticipants", maxParticipants.map(String.init))
        json.raw("memberCount", String(memberCount))
        json.raw("membersMayInvite", membersMayInvite ? "true" : "false")
        json.raw("activityIds", "[" + activityIds.map(JSONText.quoted).joined(separator: ",") + "]")
        json.string("photoId", photoId)
        json.date("createdAt", createdAt)
        json.date("updatedAt", updatedAt)
        json.raw("revision", String(revision))
        json.number("distanceKm", distanceKm)
        return json.closed
    }
}

/// A JSON object written field by field.
struct JSONObjectText {
    private var text = "{"

    var closed: String { text + "}" }

    /// Adds `key` (a plain name, written unescaped) with `value` as it is (already JSON);
    /// nothing when `value` is `nil`.
    mutating func raw(_ key: String, _ value: String?) {
        guard let value else { return }
        if text.utf8.count > 1 { text += "," }
        text += "\""
        text += key
        text += "\":"
        text += value
    }

    mutating func string(_ key: String, _ value: String?) {
        raw(key, value.map(JSONText.quoted))
    }

    /// Shortest round-trip digits, without a trailing `.0`, as `JSONEncoder` writes them.
    mutating func number(_ key: String, _ value: Double?) {
        raw(key, value.map { value in
            let text = value.description
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        })
    }

    /// RFC 3339 in UTC to the second, as `JSONEncoder`'s `.iso8601` writes it.
    mutating func date(_ key: String, _ value: Date?) {
        raw(key, value.map { date in
            var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let year = String(parts.tm_year + 1900)
            let day = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            return "\"\(day)T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z\""
        })
    }
}
