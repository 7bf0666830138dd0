import Hummingbird
import MeetCore

/// Reads numeric query parameters, collecting every one that is missing or not a number, so a
/// bad query answers one 422 `request.invalidFields` naming all of them, as bad body fields do.
struct QueryParameters {
    private let request: Request
    private var problems: [MeetError.FieldProblem] = []

    init(_ request: Request) {
        self.request = request
    }

    func string(_ name: String) -> String? {
        request.uri.queryParameters[name[...]].map(String.init)
    }

    /// The parameter as a number; `fallback` when absent (nil means it is required).
    mutating func number<Number: LosslessStringConvertible>(_ name: String, _ fallback: Number? = nil) -> Number? {
        guard let text = string(name) else {
            if fallback == nil { problems.append(.init(field: name, code: "field.required")) }
            return fallback
        }
        guard let value = Number(text) else {
            problems.append(.init(field: name, code: "field.wrongType", arguments: ["expected": "number"]))
            return fallback
        }
        return value
    }

    /// The parameter as a number of at least `minimum`, `nil` when absent; a smaller one is a
    /// `field.outOfRange` problem.
    mutating func number<Number: LosslessStringConvertible & Comparable>(_ name: String, atLeast minimum: Number) -> Number? {
        guard string(name) != nil, let value: Number = number(name) else { return nil }
        guard value >= minimum else {
            problems.append(.init(field: name, code: "field.outOfRange", arguments: ["minimum": String(minimum)]))
            return nil
        }
        return value
    }

    /// The parameter as a number within `bounds` (a page's `limit`), `fallback` when absent or
    /// refused; one outside them is a `field.outOfRange` problem naming the bounds.
    mutating func number(_ name: String, _ fallback: Int, in bounds: ClosedRange<Int>) -> Int {
        let value = number(name, fallback) ?? fallback
        guard bounds.contains(value) else {
            problems.append(.init(field: name, code: "field.outOfRange", arguments: [
                "minimum": String(bounds.lowerBound), "maximum": String(bounds.upperBound),
            ]))
            return fallback
        }
        return value
    }

    /// The parameter read by `parse`, `nil` when absent; a value `parse` refuses is a
    /// `field.invalid` problem.
    mutating func value<Value>(_ name: String, _ parse: (String) -> Value?) -> Value? {
        guard let text = string(name) else { return nil }
        guard let value = parse(text) else {
            problems.append(.init(field: name, code: "field.invalid"))
            return nil
        }
        return value
    }

    /// Throws the collected problems, if any.
    func check() throws {
        if !problems.isEmpty { throw MeetError.invalidFields(problems) }
    }
}
