import Foundation
import MeetCore
import Mustache

/// The mail of a notification (an invitation, a cancelled meeting) in its recipient's
/// language: a plain-text part and an HTML part rendered from the same values, with the https
/// form of the meeting's link (the app where it is installed, the meeting's web page elsewhere).
///
/// Texts are `mail.<kind>.subject/.intro/.action/.footer` plus `mail.greeting`, `mail.when`, `mail.where`.
struct NotificationMails: Sendable {
    let html: MustacheTemplate
    let text: MustacheTemplate
    let localizer: Localizer
    let links: AppLinks
    /// The meeting as the recipient may see it now; nil when they may not (any more).
    let meeting: @Sendable (_ id: String, _ viewerId: String) async -> Meeting?

    init(localizer: Localizer, links: AppLinks, meeting: @escaping @Sendable (_ id: String, _ viewerId: String) async -> Meeting?) throws {
        html = try MustacheTemplate(string: String(decoding: try bundledResource("mail.html", withExtension: "mustache"), as: UTF8.self))
        text = try MustacheTemplate(string: String(decoding: try bundledResource("mail.txt", withExtension: "mustache"), as: UTF8.self))
        self.localizer = localizer
        self.links = links
        self.meeting = meeting
    }

    func mail(for delivery: MailDelivery) async -> Mail {
        let notification = delivery.notification, recipient = delivery.recipient
        let language = localizer.language(acceptLanguage: recipient.locale)
        let arguments = notification.arguments.merging(["name": recipient.displayName]) { mine, _ in mine }
        func localized(_ key: String) -> String {
            // A missing table entry shows its key rather than hiding the mail.
            localizer.localized(key, language: language, arguments: arguments) ?? key
        }
        let subject = localized("mail.\(notification.kind).subject")
        var values: [String: Any] = [
            "language": language, "subject": subject, "greeting": localized("mail.greeting"),
            "intro": localized("mail.\(notification.kind).intro"), "action": localized("mail.\(notification.kind).action"),
            "footer": localized("mail.\(notification.kind).footer"), "link": links.meeting(notification.subjectId).web,
        ]
        if let meeting = await meeting(notification.subjectId, recipient.id) {
            values["meeting"] = [
                "whenLabel": localized("mail.when"), "when": MeetingWording.time(of: meeting, language: language),
                "whereLabel": localized("mail.where"), "where": MeetingWording.place(of: meeting, language: language, localizer: localizer),
            ]
        }
        return Mail(to: recipient.email, subject: subject, body: text.render(values), html: html.render(values))
    }
}
