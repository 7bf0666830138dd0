import Foundation
import MeetCore

/// Firebase Cloud Messaging HTTP v1: `POST /v1/projects/{id}/messages:send` with an OAuth2
/// access token, obtained with the service account's RS256 assertion and kept until five
/// minutes before it expires.
struct FCMTransport: PushTransport {
    let http: PushHTTP
    let account: FCMServiceAccount
    let baseURL: String
    let accessToken: CachedToken

    init(http: PushHTTP, account: FCMServiceAccount, baseURL: String, now: @escaping @Sendable () -> Date) {
        self.http = http
        self.account = account
        self.baseURL = baseURL
        accessToken = CachedToken(now: now) {
            let issued = now()
            let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try account.assertion(issuedAt: issued))
            let answer = try await http.post(
                account.tokenURI, headers: [("content-type", "application/x-www-form-urlencoded")], body: Data(form.utf8))
            struct Granted: Decodable {
                var access_token: String
                var expires_in: Double
            }
            guard answer.status == 200, let granted = try? JSONDecoder().decode(Granted.self, from: answer.body) else {
                throw FCMTokenRefused(status: answer.status, body: String(decoding: answer.body, as: UTF8.self))
            }
            return (granted.access_token, issued.addingTimeInterval(max(0, granted.expires_in - 300)))
        }
    }

    func deliver(_ message: PushMessage) async -> PushOutcome {
        do {
            let headers = [("authorization", "Bearer \(try await accessToken.value())")] + message.headers.sorted { $0.key < $1.key }
            let answer = try await http.post("\(baseURL)/v1/projects/\(account.projectId)/messages:send", headers: headers, body: message.body)
            if answer.status == 200 { return .delivered }
            let error = (try? JSONDecoder().decode(FCMError.self, from: answer.body))?.error
            if answer.status == 401 { await accessToken.invalidate() }
            return Self.outcome(status: answer.status, error: error, retryAfter: answer.retryAfter)
        } catch {
            return .retry(reason: "fcm: \(error)", after: nil)
        }
    }

    /// What an FCM refusal means for the job and the device.
    static func outcome(status: Int, error: FCMError.Body?, retryAfter: TimeInterval?) -> PushOutcome {
        let code = error?.details?.compactMap(\.errorCode).first ?? error?.status ?? "HTTP \(status)"
        let reason = "\(code): \(error?.message ?? "")"
        switch status {
        case 404:
            return .tokenRefused(reason: reason)
        case _ where code == "UNREGISTERED" || code == "SENDER_ID_MISMATCH":
            return .tokenRefused(reason: reason)
        case 400 where code == "INVALID_ARGUMENT" && (error?.message ?? "").lowercased().contains("token"):
            return .tokenRefused(reason: reason)
        case 401:
            // Renewed by then: try again at once.
            return .retry(reason: reason, after: 0)
        case 429, 500...:
            return .retry(reason: reason, after: retryAfter)
        default:
            return .rejected(reason: reason)
        }
    }
}

/// FCM's error body: `{"error": {"code", "message", "status", "details": [{"errorCode"}]}}`.
struct FCMError: Decodable {
    struct Body: Decodable {
        struct Detail: Decodable {
            var errorCode: String?
        }

        var message: String?
        var status: String?
        var details: [Detail]?
    }

    var error: Body
}

/// The token endpoint did not grant an access token.
struct FCMTokenRefused: Error, CustomStringConvertible {
    var status: Int
    var body: String
    var description: String { "access token refused: HTTP \(status) \(body.prefix(200))" }
}
