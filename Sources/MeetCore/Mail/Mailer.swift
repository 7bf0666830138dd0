/// One message to one person: plain text, and optionally the same content as HTML, sent
/// together as `multipart/alternative` so that every mail client shows one of them.
public struct Mail: Sendable, Equatable {
    /// The recipient's address: one address, checked before sending.
    public var to: String
    /// The subject line, already in the recipient's language.
    public var subject: String
    /// The plain-text body, already in the recipient's language.
    public var body: String
    /// The HTML alternative of `body`, if the mail has one.
    public var html: String?

    /// Makes a mail; `html` is the optional alternative of `body`.
    public init(to: String, subject: String, body: String, html: String? = nil) {
        self.to = to
        self.subject = subject
        self.body = body
        self.html = html
    }
}

/// Where outgoing mail goes. The default drops `.eml` files into `<data>/maildrop/`;
/// a real transport (SMTP) plugs in here.
public protocol Mailer: Sendable {
    func send(_ mail: Mail) async throws
}
