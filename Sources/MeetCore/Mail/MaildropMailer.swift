import Foundation

/// Writes each mail as an RFC 5322 message (UTF-8 per RFC 6532) into a directory, one
/// `.eml` file per message, so that nothing leaves the machine.
public struct MaildropMailer: Mailer {
    /// Where the `.eml` files go; created on the first mail.
    public let directory: URL
    /// The `From:` address.
    public let sender: String

    /// Dates each message (its `Date:` header and file name).
    let now: @Sendable () -> Date

    /// The `From:` of the service's mails unless configured otherwise.
    public static let defaultSender = "meetupd <no-reply@meetupd.local>"

    /// A mailer writing into `directory`, dating messages with `now`.
    public init(directory: URL, sender: String = defaultSender, now: @escaping @Sendable () -> Date) {
        self.directory = directory
        self.sender = sender
        self.now = now
    }

    /// Writes `mail` as one `.eml` file; refuses a recipient that is not a single valid address.
    public func send(_ mail: Mail) async throws {
        // The address goes into the `To:` header as it is: never anything but one addr-spec.
        guard EmailAddress.isValid(mail.to) else { throw InvalidRecipient(address: mail.to) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let now = now()
        let id = RandomToken.id()
        let name = "\(Int(now.timeIntervalSince1970 * 1000))-\(id).eml"
        let message = Self.render(mail, from: sender, date: now, messageId: "<\(id)@meetupd.local>")
        // Write aside, then rename: a reader never sees half a message.
        let partial = directory.appendingPathComponent("." + name + ".partial")
        try Data(message.utf8).write(to: partial)
        try FileManager.default.moveItem(at: partial, to: directory.appendingPathComponent(name))
    }

    /// The message text with CRLF line ends; non-ASCII subjects become RFC 2047 encoded words.
    /// A mail with an HTML part becomes `multipart/alternative` (text first, HTML preferred),
    /// each part in base64 so that no line outgrows SMTP's limit. Every transport sends exactly this text.
    public static func render(_ mail: Mail, from sender: String, date: Date, messageId: String) -> String {
        var headers = [
            "From: \(sender)",
            "To: \(mail.to)",
            "Subject: \(encodedHeaderText(mail.subject))",
            "Date: \(rfc5322Date(date))",
            "Message-ID: \(messageId)",
            "MIME-Version: 1.0",
        ]
        guard let html = mail.html else {
            headers += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
            return headers.joined(separator: "\r\n") + "\r\n\r\n" + crlfLines(mail.body) + "\r\n"
        }
        // "=_" never occurs in base64, so the boundary cannot appear inside a part.
        let boundary = "=_meetupd_" + RandomToken.id()
        headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
        let parts = [("text/plain", crlfLines(mail.body) + "\r\n"), ("text/html", crlfLines(html) + "\r\n")].map { type, text in
            "--\(boundary)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Data(text.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
                + "\r\n"
        }
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + parts.joined() + "--\(boundary)--\r\n"
    }

    /// `text` with CRLF line ends.
    private static func crlfLines(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\r\n")
    }

    static func encodedHeaderText(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard !flat.allSatisfy({ $0.isASCII }) else { return flat }
        // One encoded word per chunk keeps each under RFC 2047's 75 characters.
        var words: [String] = []
        var chunk = ""
        for character in flat {
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        words.append(chunk)
        return words.map { "=?UTF-8?B?" + Data($0.utf8).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

/// A mail whose recipient is not one plain address: a bug upstream, never written out.
struct InvalidRecipient: Error {
    let address: String
}
