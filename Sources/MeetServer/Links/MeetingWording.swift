import Foundation
import MeetCore

/// How a meeting's time and place read to a person, the same on its web page and in mails.
enum MeetingWording {
    /// "Sat, 5 Dec 2026, 18:00 (Europe/Kyiv)" in the meeting's own time zone.
    static func time(of meeting: Meeting, language: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == "uk" ? "uk_UA" : "en_GB")
        formatter.timeZone = meeting.place.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate("EEE d MMM yyyy HH:mm")
        return formatter.string(from: meeting.startsAt) + " (" + (formatter.timeZone?.identifier ?? "UTC") + ")"
    }

    /// "Mariinskyi Park, Kyiv", or the localized "Online" for a meeting without a place.
    static func place(of meeting: Meeting, language: String, localizer: Localizer) -> String {
        meeting.place.map { [$0.name, $0.city].filter { !$0.isEmpty }.joined(separator: ", ") }
            ?? localizer.localized("link.online", language: language) ?? "Online"
    }
}
