import Foundation
import Hummingbird
import HummingbirdTesting
import MeetCore
@testable import MeetServer

/// A response as the tests look at it: status, headers and the JSON body, if any.
struct TestReply: @unchecked Sendable {
    var status: Int
    var headers: HTTPFields
    var text: String
    /// The body parsed as a JSON object (problem documents, records), or empty.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    func string(_ key: String) -> String? { json[key] as? String }
}

/// Drives a real meetupd over loopback: a fresh data directory with its own SQLite file, the
/// server on a free port, requests over real sockets.
struct TestServer: Sendable {
    let client: any TestClientProtocol
    let dataDirectory: URL

    /// Runs `body` against a freshly started server, then stops it gracefully and deletes
    /// its data. `now` is the server's clock (the real one unless a test moves it);
    /// `stompPort`, when given, opens STOMP over plain TCP there too. Given a
    /// `dataDirectory`, the server uses it and leaves it for the next run (a restart).
    static func run<Value: Sendable>(
        now: @escaping @Sendable () -> Date = Date.init,
        stompPort: Int? = nil,
        dataDirectory: URL? = nil,
        chatBurst: Int = 10,
        _ body: @Sendable (TestServer) async throws -> Value
    ) async throws -> Value {
        let directory = dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("meetupd-test-" + UUID().uuidString)
        defer { if dataDirectory == nil { try? FileManager.default.removeItem(at: directory) } }
        // Cheap scrypt keeps tests quick; the real cost is measured in Benchmarks/.
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, logLevel: .warning,
            passwordHashing: .init(logRounds: 4))
        configuration.now = now
        configuration.stompPort = stompPort
        configuration.chatBurst = chatBurst
        // Every test signs its users up from loopback: only the per-address mail limit applies.
        configuration.mailThrottle.perClient = 100_000
        let app = try buildApplication(configuration)
        return try await app.test(.live) { client in
            try await body(TestServer(client: client, dataDirectory: directory))
        }
    }

    /// Sends a request; `json` is serialized as the body, `raw` is sent as it is.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, json: [String: any Sendable]? = nil, raw: String? = nil,
        token: String? = nil, headers: HTTPFields = [:]
    ) async throws -> TestReply {
        var headers = headers
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        } else if let raw {
            body = ByteBuffer(string: raw)
        }
        if body != nil, headers[.contentType] == nil {
            headers[.contentType] = "application/json"
        }
        if let token {
            headers[.authorization] = "Bearer " + token
        }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
        return TestReply(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
    }

    /// The mails sent to `address`, oldest first, once there are at least `count`: the mail
    /// dispatcher sends them after the request that queued them has answered. Throws after 30 s.
    func mails(to address: String, atLeast count: Int = 1) async throws -> [ReceivedMail] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let mails = try mailsSoFar(to: address)
            if mails.count >= count { return mails }
            guard ContinuousClock.now < deadline else { throw MailNotSent(address: address, what: "\(count) mails") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The token of the last mail to `address` whose link has `action` (`confirm`, `reset`),
    /// once it has been sent. Throws after 30 s.
    func mailedToken(to address: String, action: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let token = try mailsSoFar(to: address).reversed().lazy.compactMap({ $0.token(for: action) }).first { return token }
            guard ContinuousClock.now < deadline else { throw MailNotSent(address: address, what: "a \(action) mail") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func mailsSoFar(to address: String) throws -> [ReceivedMail] {
        let maildrop = dataDirectory.appendingPathComponent("maildrop")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: maildrop.path)) ?? []
        return try names.filter { $0.hasSuffix(".eml") }.sorted().compactMap { name in
            let mail = ReceivedMail(raw: try String(contentsOf: maildrop.appendingPathComponent(name), encoding: .utf8))
            return mail.headers["to"] == address ? mail : nil
        }
    }
}

/// No mail came within the deadline.
struct MailNotSent: Error {
    let address: String
    let what: String
}
