/// Where mail goes when it leaves the machine: an SMTP server (`meetupd serve --mail-transport
/// smtp --smtp-host ...`; README, "Configuration").
public struct SMTPSettings: Sendable {
    /// A user name and password for `AUTH PLAIN`.
    public struct Credentials: Sendable {
        public var username: String
        public var password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    public var host: String
    /// 587 (submission) by default.
    public var port = 587
    /// Upgrade the connection with `STARTTLS` before anything private is said; the server must
    /// offer it.
    public var startTLS = false
    /// Sign in before sending; only over STARTTLS unless the operator allows plain text.
    public var credentials: Credentials?
    /// Extra certificates to trust for STARTTLS (a private CA, a test's).
    public var trustedCertificatesFile: String?
    /// How long one mail's whole conversation may take.
    public var timeout = Duration.seconds(30)

    public init(host: String) {
        self.host = host
    }
}
