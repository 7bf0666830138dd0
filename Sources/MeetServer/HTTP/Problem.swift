import Foundation
import HTTPTypes
import Hummingbird
import MeetCore

/// An RFC 9457 problem document, with the app's stable `code` and field-level problems.
struct Problem: Encodable {
    struct InvalidField: Encodable {
        var field: String
        var code: String
        var detail: String?
    }

    var type: String
    var title: String
    var status: Int
    var detail: String?
    var code: String
    var instance: String?
    var errors: [InvalidField]?
}

/// Renders refusals as `application/problem+json`, with title and detail in the language the
/// client asked for.
struct ProblemRenderer: Sendable {
    let localizer: any Localizing

    func response(for error: MeetError, request: Request) -> Response {
        let language = request.headers[.acceptLanguage]
        let status = HTTPResponse.Status(code: error.status)
        func text(_ key: String, _ arguments: [String: String]) -> String? {
            localizer.localized(key, arguments: arguments, acceptLanguage: language)
        }
        let problem = Problem(
            type: "urn:meetupd:problem:" + error.code,
            title: text(error.code + ".title", error.arguments) ?? Self.reasonPhrases[error.status] ?? "Error",
            status: error.status,
            detail: text(error.code + ".detail", error.arguments),
            code: error.code,
            instance: request.uri.path,
            errors: error.fieldProblems.isEmpty ? nil : error.fieldProblems.map {
                .init(field: $0.field, code: $0.code, detail: text($0.code + ".detail", $0.arguments.merging(["field": $0.field]) { own, _ in own }))
            })
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        for (name, value) in error.headers {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        let body = (try? JSONEncoder().encode(problem)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Titles for codes no table has: the status's reason phrase, as RFC 9457 suggests.
    static let reasonPhrases: [Int: String] = Dictionary(uniqueKeysWithValues: [
        HTTPResponse.Status.badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .conflict, .gone,
        .contentTooLarge, .unsupportedMediaType, .unprocessableContent, .tooManyRequests, .internalServerError,
        .serviceUnavailable,
    ].map { ($0.code, $0.reasonPhrase) })
}
