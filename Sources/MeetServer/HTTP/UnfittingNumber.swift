import Foundation
import MeetCore

/// Finds the field of a number that does not fit it (too large for an `Int`, a fraction where
/// an integer is wanted). Foundation on Linux reports such a number as invalid JSON with no
/// path, which would answer a client's 1e30 with "malformed JSON" instead of naming the
/// field; when the body is valid JSON, each suspicious number is set to zero in turn until
/// the body decodes, and that number's path is the field.
enum UnfittingNumber {
    /// How many numbers are tried at most: a request has few fields that take numbers.
    static let maximumTries = 16

    /// The 422 naming the field, or `nil` when no single number is to blame.
    static func field<T: Decodable>(decoding type: T.Type, from data: Data, with decoder: JSONDecoder) -> MeetError? {
        guard let tree = try? JSONSerialization.jsonObject(with: data) else { return nil }
        var suspects: [(path: [Any], number: NSNumber)] = []
        collect(tree, path: [], into: &suspects)
        for suspect in suspects.prefix(maximumTries) {
            let zeroed = replacing(in: tree, at: suspect.path[...])
            guard let body = try? JSONSerialization.data(withJSONObject: zeroed),
                  (try? decoder.decode(type, from: body)) != nil else { continue }
            let field = suspect.path.map { "\($0)" }.joined(separator: ".")
            let value = suspect.number.doubleValue
            return value.rounded() == value
                ? .invalidField(field, "field.invalid")
                : .invalidField(field, "field.wrongType", arguments: ["expected": "integer"])
        }
        return nil
    }

    /// Numbers that Foundation stores as floating point or decimal: the only ones that can fail
    /// to fit an integer field (JSON `true` and `false` are numbers too, and are left out).
    private static func collect(_ node: Any, path: [Any], into suspects: inout [(path: [Any], number: NSNumber)]) {
        switch node {
        case let object as [String: Any]:
            for (key, value) in object.sorted(by: { $0.key < $1.key }) { collect(value, path: path + [key], into: &suspects) }
        case let array as [Any]:
            for (index, value) in array.enumerated() { collect(value, path: path + [index], into: &suspects) }
        case is Bool:
            break
        case let number as NSNumber where number is NSDecimalNumber || String(cString: number.objCType) == "d":
            suspects.append((path, number))
        default:
            break
        }
    }

    private static func replacing(in node: Any, at path: ArraySlice<Any>) -> Any {
        guard let step = path.first else { return 0 }
        if var object = node as? [String: Any], let key = step as? String, let child = object[key] {
            object[key] = replacing(in: child, at: path.dropFirst())
            return object
        }
        if var array = node as? [Any], let index = step as? Int, array.indices.contains(index) {
            array[index] = replacing(in: array[index], at: path.dropFirst())
            return array
        }
        return node
    }
}
