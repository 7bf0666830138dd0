import Foundation
import MeetCore
import NIOCore
import NIOPosix
import NIOSSL

/// Sends each mail through an SMTP server (RFC 5321), one connection per mail: `EHLO`,
/// `STARTTLS` and a second `EHLO` when configured, `AUTH PLAIN` (or `AUTH LOGIN` where only
/// that is offered) when credentials are set,
/// then `MAIL FROM`, `RCPT TO`, `DATA` with the same RFC 5322 text the maildrop writes, and
/// `QUIT`. A 4xx reply throws ``SMTPError/transient``, a 5xx one ``SMTPError/refused``; the
/// whole conversation is bounded by the settings' timeout.
struct SMTPMailer: Mailer {
    let settings: SMTPSettings
    /// The `From:` header; its address is the envelope sender.
    let sender: String
    let now: @Sendable () -> Date

    func send(_ mail: Mail) async throws {
        guard EmailAddress.isValid(mail.to) else { throw SMTPError.refused("not one plain address: \(mail.to)") }
        let text = MaildropMailer.render(mail, from: sender, date: now(), messageId: "<\(RandomToken.id())@meetupd.local>")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await converse(to: mail.to, text: text) }
            group.addTask {
                try await Task.sleep(for: settings.timeout)
                throw SMTPError.transient("no answer within \(settings.timeout)")
            }
            defer { group.cancelAll() }
            _ = try await group.next()
        }
    }

    private func converse(to recipient: String, text: String) async throws {
        let session = try await SMTPSession.open(host: settings.host, port: settings.port)
        defer { session.close() }
        try await session.expect(220)
        var capabilities = try await session.command("EHLO meetupd", expect: 250)
        if settings.startTLS {
            guard capabilities.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                throw SMTPError.refused("\(settings.host) does not offer STARTTLS")
            }
            _ = try await session.command("STARTTLS", expect: 220)
            try await session.startTLS(serverName: settings.host, trustingAlso: settings.trustedCertificatesFile)
            capabilities = try await session.command("EHLO meetupd", expect: 250)
        }
        if let credentials = settings.credentials {
            try await Self.signIn(session, username: credentials.username, password: credentials.password,
                                  offered: Self.authMechanisms(capabilities))
        }
        _ = try await session.command("MAIL FROM:<\(Self.address(of: sender))>", expect: 250)
        _ = try await session.command("RCPT TO:<\(recipient)>", expect: 250, 251)
        _ = try await session.command("DATA", expect: 354)
        _ = try await session.command(Self.dotStuffed(text) + ".", expect: 250)
        _ = try? await session.command("QUIT", expect: 221)
    }

    /// `AUTH PLAIN`, or `AUTH LOGIN` when the server offers only that (older servers).
    private static func signIn(_ session: SMTPSession, username: String, password: String, offered: Set<String>) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if offered.contains("LOGIN") && !offered.contains("PLAIN") {
            _ = try await session.command("AUTH LOGIN", expect: 334)
            _ = try await session.command(base64(username), expect: 334)
            _ = try await session.command(base64(password), expect: 235)
        } else {
            _ = try await session.command("AUTH PLAIN " + base64("\u{0}\(username)\u{0}\(password)"), expect: 235)
        }
    }

    /// The SASL mechanisms an EHLO reply offers (its `AUTH PLAIN LOGIN` line), upper-cased.
    static func authMechanisms(_ capabilities: [String]) -> Set<String> {
        Set(capabilities.flatMap { line -> [String] in
            let words = line.uppercased().split(separator: " ").map(String.init)
            return words.first == "AUTH" ? Array(words.dropFirst()) : []
        })
    }

    /// The bare address of a `Name <address>` header value.
    static func address(of header: String) -> String {
        guard let open = header.lastIndex(of: "<"), let close = header.lastIndex(of: ">"), open < close else { return header }
        return String(header[header.index(after: open)..<close])
    }

    /// The message with every line that starts with a dot given a second one (RFC 5321 4.5.2),
    /// ending in CRLF.
    static func dotStuffed(_ text: String) -> String {
        let lines = text.components(separatedBy: "\r\n").map { $0.hasPrefix(".") ? "." + $0 : $0 }
        let joined = lines.joined(separator: "\r\n")
        return joined.hasSuffix("\r\n") ? joined : joined + "\r\n"
    }
}

/// An SMTP conversation that did not end with the mail accepted.
enum SMTPError: Error, CustomStringConvertible {
    /// Worth trying again later: a 4xx reply, a lost connection, a timeout.
    case transient(String)
    /// Refused for good: a 5xx reply, a server without what the settings require.
    case refused(String)

    var description: String {
        switch self {
        case .transient(let reason): "SMTP transient failure: \(reason)"
        case .refused(let reason): "SMTP refused: \(reason)"
        }
    }
}

/// One connection to an SMTP server: commands out, complete replies in. Used by one task.
private final class SMTPSession {
    let channel: any Channel
    private var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator

    private init(channel: any Channel, replies: AsyncThrowingStream<SMTPReply, any Error>) {
        self.channel = channel
        self.replies = replies.makeAsyncIterator()
    }

    static func open(host: String, port: Int) async throws -> SMTPSession {
        let (replies, continuation) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyHandler(continuation: continuation))
                    }
                }
                .connect(host: host, port: port)
                .get()
            return SMTPSession(channel: channel, replies: replies)
        } catch {
            throw SMTPError.transient("cannot connect to \(host):\(port): \(error)")
        }
    }

    /// Waits for the next reply, which must have one of `codes`; answers its text lines.
    @discardableResult
    func expect(_ codes: Int...) async throws -> [String] {
        try await expect(codes)
    }

    /// Sends one command line (or the message, ending in its `.` line) and waits for its reply.
    func command(_ line: String, expect codes: Int...) async throws -> [String] {
        try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n"))
        return try await expect(codes)
    }

    private func expect(_ codes: [Int]) async throws -> [String] {
        guard let reply = try await replies.next() else { throw SMTPError.transient("the server closed the connection") }
        guard codes.contains(reply.code) else {
            let text = "\(reply.code) \(reply.lines.joined(separator: " "))"
            throw (400..<500).contains(reply.code) ? SMTPError.transient(text) : SMTPError.refused(text)
        }
        return reply.lines
    }

    /// Puts TLS under the conversation, verifying the server's certificate for `serverName`
    /// (for an IP address, which SNI cannot carry, against the address connected to).
    func startTLS(serverName: String, trustingAlso caFile: String?) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        let context = try NIOSSLContext(configuration: tls)
        let hostname = (try? SocketAddress(ipAddress: serverName, port: 0)) == nil ? serverName : nil
        try await channel.eventLoop.submit { [channel] in
            let handler = try NIOSSLClientHandler(context: context, serverHostname: hostname)
            try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        }.get()
    }

    func close() {
        channel.close(promise: nil)
    }
}
