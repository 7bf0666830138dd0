/// One plain-text message to one person.
public struct Mail: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var body: String

    public init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}

/// Where outgoing mail goes. The default drops `.eml` files into `<data>/maildrop/`;
/// a real transport (SMTP) plugs in here.
public protocol Mailer: Sendable {
    func send(_ mail: Mail) async throws
}
