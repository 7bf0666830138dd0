import Foundation

/// A full-screen campaign the app shows once to the users it is meant for.
public struct Promo: Sendable, Equatable {
    /// Opaque id; a client dismisses the promo by it (`POST /promo/{id}/dismiss`).
    public var id: String
    /// Headline, 1–80 characters.
    public var title: String
    /// Body text, 1–500 characters.
    public var text: String
    /// Id of an uploaded picture shown with it, if any.
    public var imageMediaId: String?
    /// Where its button leads: a `meetup://` link or an https URL.
    public var deeplink: String?
    /// A public meeting the promo advertises, if any.
    public var meetingId: String?
    /// From when it is shown.
    public var startsAt: Date
    /// Until when it is shown; always after `startsAt`.
    public var endsAt: Date
    /// Who sees it (a configuration rule's condition), `nil` for everyone.
    public var audience: ConfigValue?
    /// Among several that apply, the highest is shown.
    public var priority: Int
    /// How many users were shown it, and how many of them dismissed it.
    public var impressions: Int
    /// Of those, how many dismissed it.
    public var dismissals: Int
}

/// A promo as an operator writes it (`meetupd admin promo push FILE`).
public struct PromoDraft: Decodable, Sendable {
    /// Headline, 1–80 characters after trimming.
    public var title: String
    /// Body text, 1–500 characters.
    public var text: String
    /// Id of an uploaded picture to show with it.
    public var imageMediaId: String?
    /// Where its button leads: a `meetup://` link or an https URL, at most 512 bytes.
    public var deeplink: String?
    /// A public meeting to advertise; any other id is `meeting.notFound`.
    public var meetingId: String?
    /// RFC 3339 start of the campaign.
    public var startsAt: String
    /// RFC 3339 end of the campaign; must be after `startsAt`.
    public var endsAt: String
    /// Who sees it (a configuration condition); absent for everyone.
    public var audience: ConfigValue?
    /// Among several promos that apply, the highest is shown; absent means 0.
    public var priority: Int?

    /// Checks every field.
    /// - Throws: `request.invalidFields` naming each bad field.
    func validated() throws -> (startsAt: Date, endsAt: Date) {
        var problems: [MeetError.FieldProblem] = []
        func problem(_ field: String, _ code: String) {
            problems.append(.init(field: field, code: code))
        }
        if !(1...80).contains(title.trimmingCharacters(in: .whitespaces).unicodeScalars.count) { problem("title", "field.tooLong") }
        if !(1...500).contains(text.unicodeScalars.count) { problem("text", "field.tooLong") }
        if !(imageMediaId.map(RandomToken.isWellFormedId) ?? true) { problem("imageMediaId", "field.invalid") }
        if !(meetingId.map(RandomToken.isWellFormedId) ?? true) { problem("meetingId", "field.invalid") }
        if !(deeplink.map(Self.isLink) ?? true) { problem("deeplink", "field.invalid") }
        let start = RFC3339.date(from: startsAt), end = RFC3339.date(from: endsAt)
        if start == nil { problem("startsAt", "field.invalidTime") }
        if end == nil { problem("endsAt", "field.invalidTime") }
        if let start, let end, start >= end { problem("endsAt", "promo.endBeforeStart") }
        if let audience {
            var validator = ConfigValidator()
            validator.check(condition: audience, at: "audience")
            problems += validator.problems
        }
        guard problems.isEmpty, let start, let end else { throw MeetError.invalidFields(problems) }
        return (start, end)
    }

    static func isLink(_ text: String) -> Bool {
        guard text.utf8.count <= 512, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return scheme == AppLinks.scheme || (scheme == "https" && !(url.host ?? "").isEmpty)
    }
}
