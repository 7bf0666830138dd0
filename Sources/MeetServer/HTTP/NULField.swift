import Foundation
import Hummingbird
import MeetCore

/// Finds a NUL character in what a client sent, so that it is refused at the boundary: SQLite
/// stores it, but C code reading the text back stops there ("Mal\0lory" reads as "Mal").
enum NULField {
    /// The path of the first JSON string (or key) holding U+0000, `""` for the top level, or
    /// `nil` when there is none. A byte scan finds the `\u0000` escapes (or raw NUL bytes) first,
    /// so a clean body is not parsed twice.
    static func path(in data: Data) -> String? {
        guard mayHoldNUL(data), let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        return path(in: value, at: [])
    }

    private static func path(in value: Any, at path: [String]) -> String? {
        switch value {
        case let text as String:
            return text.unicodeScalars.contains("\0") ? path.joined(separator: ".") : nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = self.path(in: element, at: path + [String(index)]) { return found }
            }
        case let object as [String: Any]:
            for (key, element) in object {
                if key.unicodeScalars.contains("\0") { return (path + [key]).joined(separator: ".") }
                if let found = self.path(in: element, at: path + [key]) { return found }
            }
        default:
            break
        }
        return nil
    }

    /// Whether the body has a NUL byte or a `\u0000` escape (not itself escaped) anywhere.
    static func mayHoldNUL(_ data: Data) -> Bool {
        let escape = Array("u0000".utf8)
        var escaped = false
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            if byte == 0 { return true }
            if escaped {
                escaped = false
                if byte == UInt8(ascii: "u"), data.endIndex - index >= 5, Array(data[index..<index + 5]) == escape { return true }
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            }
            index += 1
        }
        return false
    }

    /// The query parameters holding U+0000, by name. A decoded value holds one only where the
    /// query has `%00` (or a NUL byte): other queries are not decoded here, which cost 20,000
    /// instructions, 2 % of a date-sorted feed request (issue 21).
    static func queryParameters(of request: Request) -> [String] {
        guard let query = request.uri.query, mayHoldNUL(query: query) else { return [] }
        return request.uri.queryParameters.compactMap { name, value in value.unicodeScalars.contains("\0") ? String(name) : nil }
    }

    /// Whether `query`, as sent (percent-encoded), has `%00` or a NUL byte.
    static func mayHoldNUL(query: String) -> Bool {
        var percents = 0  // how many of `%`, `0` were just seen
        for byte in query.utf8 {
            if byte == 0 { return true }
            switch (percents, byte) {
            case (_, UInt8(ascii: "%")): percents = 1
            case (1, UInt8(ascii: "0")): percents = 2
            case (2, UInt8(ascii: "0")): return true
            default: percents = 0
            }
        }
        return false
    }
}

/// Refuses a request whose query parameters hold a NUL, with 422 naming them; bodies are
/// checked by ``CheckedJSONDecoder``.
struct NULQueryMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let names = NULField.queryParameters(of: request)
        guard names.isEmpty else {
            throw MeetError.invalidFields(names.sorted().map { .init(field: $0, code: "field.invalidCharacters") })
        }
        return try await next(request, context)
    }
}
