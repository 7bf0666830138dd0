import Foundation
import MeetCore
import Mustache

/// Every mail of the outbox in its recipient's language: a plain-text part and an HTML part
/// rendered from the same values (`Resources/mail.txt.mustache`, `mail.html.mustache`), with
/// https links (the app where it is installed, a web page elsewhere).
///
/// A notification mail (an invitation, a meeting moved or cancelled) takes
/// `mail.<kind>.subject/.intro/.action/.footer` plus `mail.when`, `mail.where`; an account mail
/// `mail.confirm.*` or `mail.reset.*` with `.tokenLabel` before the bare token; all start with `mail.greeting`.
struct MailComposer: Sendable {
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
        let recipient = delivery.recipient
        let language = localizer.language(acceptLanguage: recipient.locale)
        switch delivery.content {
        case .notification(let notification):
            let wording = Wording(localizer: localizer, language: language, prefix: "mail.\(notification.kind)",
                                  arguments: notification.arguments.merging(["name": recipient.displayName]) { mine, _ in mine })
            var values = wording.values(link: links.meeting(notification.subjectId).web)
            if let meeting = await meeting(notification.subjectId, recipient.id) {
                values["meeting"] = [
                    "whenLabel": wording.localized("mail.when"), "when": MeetingWording.time(of: meeting, language: language),
                    "whereLabel": wording.localized("mail.where"),
                    "where": MeetingWording.place(of: meeting, language: language, localizer: localizer),
                ]
            }
            return render(values, to: recipient)
        case .account(let mail):
            let (prefix, link) = switch mail.purpose {
            case .confirmEmail: ("mail.confirm", links.confirmEmail(token: mail.token).web)
            case .resetPassword: ("mail.reset", links.resetPassword(token: mail.token).web)
            }
            let wording = Wording(localizer: localizer, language: language, prefix: prefix, arguments: ["name": recipient.displayName])
            var values = wording.values(link: link)
            values["code"] = ["label": wording.localized("\(prefix).tokenLabel"), "token": mail.token]
            return render(values, to: recipient)
        }
    }

    private func render(_ values: [String: Any], to recipient: User) -> Mail {
        Mail(to: recipient.email, subject: values["subject"] as? String ?? "", body: text.render(values), html: html.render(values))
    }

    /// The texts of one mail: `<prefix>.subject/.intro/.action/.footer` and the greeting, in one language.
    private struct Wording {
        let localizer: Localizer
        let language: String
        let prefix: String
        let arguments: [String: String]

        func localized(_ key: String) -> String {
            // A missing table entry shows its key rather than hiding the mail.
            localizer.localized(key, language: language, arguments: arguments) ?? key
        }

        /// The template values every mail has.
        func values(link: String) -> [String: Any] {
            [
                "language": language, "subject": localized("\(prefix).subject"), "greeting": localized("mail.greeting"),
                "intro": localized("\(prefix).intro"), "action": localized("\(prefix).action"),
                "footer": localized("\(prefix).footer"), "link": link,
            ]
        }
    }
}
