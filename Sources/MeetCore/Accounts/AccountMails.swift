/// The mails of the accounts area: a localized explanation in the user's language, then
/// the https link (it opens the app where it is installed, a page with a button into it
/// elsewhere) and the bare token for typing in by hand.
struct AccountMails: Sendable {
    let localizer: any Localizing
    let links: AppLinks

    func confirmation(to user: User, token: String) -> Mail {
        mail(to: user, kind: "confirm", token: token, link: links.confirmEmail(token: token).web)
    }

    func passwordReset(to user: User, token: String) -> Mail {
        mail(to: user, kind: "reset", token: token, link: links.resetPassword(token: token).web)
    }

    private func mail(to user: User, kind: String, token: String, link: String) -> Mail {
        func text(_ part: String) -> String {
            let key = "mail.\(kind).\(part)"
            // A missing table entry shows its key rather than hiding the mail.
            return localizer.localized(key, arguments: ["name": user.displayName], acceptLanguage: user.locale) ?? key
        }
        let body = text("body") + "\n\n" + link + "\n\n" + text("tokenLabel") + " " + token + "\n"
        return Mail(to: user.email, subject: text("subject"), body: body)
    }
}
