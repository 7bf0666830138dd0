import AsyncHTTPClient
import Foundation
import MeetCore

/// Apple's HTTP/2 provider API with token-based authentication: `POST /3/device/{token}` on
/// the production or sandbox host, as the device registered, with the ES256 provider token
/// renewed every 50 minutes (Apple accepts one for an hour).
struct APNsTransport: PushTransport {
    /// Where the provider API is; tests point both at a local server.
    struct Hosts: Sendable {
        var production = "https://api.push.apple.com"
        var sandbox = "https://api.sandbox.push.apple.com"
    }

    let http: PushHTTP
    let hosts: Hosts
    let providerToken: CachedToken

    init(http: PushHTTP, key: APNsSigningKey, hosts: Hosts, now: @escaping @Sendable () -> Date) {
        self.http = http
        self.hosts = hosts
        providerToken = CachedToken(now: now) {
            let issued = now()
            return (try key.providerToken(issuedAt: issued), issued.addingTimeInterval(50 * 60))
        }
    }

    func deliver(_ message: PushMessage) async -> PushOutcome {
        let host = message.environment == .sandbox ? hosts.sandbox : hosts.production
        do {
            let headers = [("authorization", "bearer \(try await providerToken.value())"), ("content-type", "application/json")]
                + message.headers.sorted { $0.key < $1.key }
            let answer = try await http.post("\(host)/3/device/\(message.token)", headers: headers, body: message.body)
            if answer.status == 200 { return .delivered }
            struct Failure: Decodable { var reason: String }
            let reason = (try? JSONDecoder().decode(Failure.self, from: answer.body))?.reason ?? "HTTP \(answer.status)"
            if answer.status == 403, reason == "ExpiredProviderToken" { await providerToken.invalidate() }
            return Self.outcome(status: answer.status, reason: reason, retryAfter: answer.retryAfter)
        } catch {
            return .retry(reason: "apns: \(error)", after: nil)
        }
    }

    /// What an APNs refusal means for the job and the device.
    static func outcome(status: Int, reason: String, retryAfter: TimeInterval?) -> PushOutcome {
        switch (status, reason) {
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .tokenRefused(reason: reason)
        case (403, "ExpiredProviderToken"):
            // Renewed by then: try again at once.
            return .retry(reason: reason, after: 0)
        case (429, _), (500..., _):
            return .retry(reason: "\(status) \(reason)", after: retryAfter)
        default:
            return .rejected(reason: "\(status) \(reason)")
        }
    }
}
