import Foundation
import Hummingbird
import MeetCore

/// Decodes JSON request bodies and turns every way they can be wrong into a problem a
/// client can act on: malformed JSON (400), nesting too deep (400), missing or mistyped
/// fields (422, naming the field).
public struct CheckedJSONDecoder: RequestDecoder {
    /// Deeper nesting than any request of the API needs; refusing it early bounds the
    /// decoder's recursion.
    public static let maximumDepth = 32

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        if let contentType = request.headers[.contentType], MediaType(from: contentType)?.isType(.applicationJson) != true {
            throw MeetError("request.unsupportedMediaType", status: 415)
        }
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try Self.decode(type, from: Data(buffer.readableBytesView))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard nestingDepth(of: data) <= maximumDepth else {
            throw MeetError("request.tooDeep", status: 400, arguments: ["maximum": String(maximumDepth)])
        }
        if let field = NULField.path(in: data) {
            throw MeetError.invalidField(field, "field.invalidCharacters")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = RFC3339.date(from: try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time")
            }
            return date
        }
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               let field = UnfittingNumber.field(decoding: type, from: data, with: decoder) {
                throw field
            }
            throw problem(for: error)
        }
    }

    static func problem(for error: DecodingError) -> MeetError {
        let malformed = MeetError("request.malformedJSON", status: 400)
        switch error {
        case .keyNotFound(let key, let context):
            return .invalidField(path(context.codingPath + [key]), "field.required")
        case .valueNotFound(_, let context) where !context.codingPath.isEmpty:
            return .invalidField(path(context.codingPath), "field.required")
        case .typeMismatch(let type, let context) where !context.codingPath.isEmpty:
            return .invalidField(path(context.codingPath), "field.wrongType", arguments: ["expected": jsonTypeName(type)])
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return .invalidField(path(context.codingPath), "field.invalid")
        default:
            return malformed
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Date.Type: "string"
        case is Bool.Type: "boolean"
        case is any BinaryInteger.Type: "integer"
        case is any BinaryFloatingPoint.Type: "number"
        case is any Collection.Type: "array"
        default: "object"
        }
    }

    /// The deepest nesting of arrays and objects, skipping brackets inside strings.
    static func nestingDepth(of data: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
