import AsyncHTTPClient
import Foundation
import MeetCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// The HTTP side the APNs and FCM transports share: one client whose connections are
/// HTTP/2 where the service speaks it (negotiated by ALPN), so concurrent pushes are
/// multiplexed on one connection per host.
struct PushHTTP: Sendable {
    /// A service's answer.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        /// `Retry-After` in seconds, when given as a number.
        var retryAfter: TimeInterval? {
            headers.first(name: "retry-after").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    let client: HTTPClient
    /// How long one push may take, connection included.
    let timeout: TimeAmount

    /// A client trusting the system's roots and, if named, the certificates in `caFile` (a
    /// proxy's, or a test's local service).
    static func make(trustingAlso caFile: String?, timeout: TimeAmount = .seconds(10)) throws -> PushHTTP {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: timeout, read: timeout)
        return PushHTTP(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration), timeout: timeout)
    }

    /// POSTs `body`; throws only when no answer came (connection failed, timed out).
    func post(_ url: String, headers: [(String, String)], body: Data) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 64 * 1024)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}
