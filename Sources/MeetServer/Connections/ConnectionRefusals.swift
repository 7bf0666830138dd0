import Foundation
import MeetCore
import NIOCore
import NIOHTTP1

/// The answers the connection guard gives by itself, before any route sees the request:
/// problem documents rendered once, in the default language (there is no request to read an
/// `Accept-Language` from yet).
struct ConnectionRefusals: Sendable {
    /// One canned answer.
    struct Refusal: Sendable {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    /// A request head, or the rest of a body, did not arrive in time (408).
    let timeout: Refusal
    let headTooLarge: Refusal
    let bodyTooLarge: Refusal
    let malformed: Refusal
    let busy: Refusal

    init(localizer: any Localizing, limits: HTTPConnectionLimits) {
        func refusal(_ error: MeetError) -> Refusal {
            let status = HTTPResponseStatus(statusCode: error.status)
            let problem = Problem(
                type: "urn:meetupd:problem:" + error.code,
                title: localizer.localized(error.code + ".title", arguments: error.arguments, acceptLanguage: nil) ?? status.reasonPhrase,
                status: error.status,
                detail: localizer.localized(error.code + ".detail", arguments: error.arguments, acceptLanguage: nil),
                code: error.code, instance: nil, errors: nil)
            return Refusal(status: status, headers: HTTPHeaders(error.headers.map { ($0.key, $0.value) }),
                           body: ByteBuffer(bytes: (try? JSONEncoder().encode(problem)) ?? Data()))
        }
        timeout = refusal(MeetError("request.timeout", status: 408))
        headTooLarge = refusal(MeetError("request.headTooLarge", status: 431))
        bodyTooLarge = refusal(MeetError("request.tooLarge", status: 413, arguments: ["maximum": String(limits.maxBodySize)]))
        malformed = refusal(MeetError("request.malformed", status: 400))
        busy = refusal(MeetError("server.busy", status: 503, headers: ["Retry-After": "10"]))
    }
}
