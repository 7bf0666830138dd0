import Foundation
import Hummingbird
import MeetCore
import Mustache

/// The small web page a shared link shows where the app is not installed: a public meeting's
/// title, time and place with Open Graph tags for link previews, and a button into the app.
struct LinkPage: Sendable {
    let template: MustacheTemplate
    let localizer: Localizer

    init(localizer: Localizer) throws {
        template = try MustacheTemplate(string: String(decoding: try bundledResource("link-page", withExtension: "mustache"), as: UTF8.self))
        self.localizer = localizer
    }

    func meeting(_ meeting: Meeting, link: AppLink, language: String) -> Response {
        let place = MeetingWording.place(of: meeting, language: language, localizer: localizer)
        var when = MeetingWording.time(of: meeting, language: language)
        if meeting.status == .cancelled { when = text("link.cancelled", language) + " · " + when }
        let values: [String: Any] = [
            "language": language, "title": meeting.title, "siteName": text("link.siteName", language),
            "meeting": [
                "when": when, "where": place, "summary": when + " · " + place, "webLink": link.web,
                "description": String(meeting.description.prefix(300)),
            ],
            "appLink": link.app, "openLabel": text("link.openInApp", language),
        ]
        return html(template.render(values), status: .ok)
    }

    /// The same page for a private meeting and for an unknown id.
    func unavailable(language: String) -> Response {
        let values: [String: Any] = [
            "language": language, "title": text("link.unavailable.title", language),
            "message": text("link.unavailable.message", language),
        ]
        return html(template.render(values), status: .notFound)
    }

    func openInApp(_ link: AppLink, language: String) -> Response {
        let values: [String: Any] = [
            "language": language, "title": text("link.siteName", language), "message": text("link.openMessage", language),
            "appLink": link.app, "openLabel": text("link.openInApp", language),
        ]
        return html(template.render(values), status: .ok)
    }

    private func text(_ key: String, _ language: String) -> String {
        localizer.localized(key, language: language) ?? key
    }

    private func html(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
