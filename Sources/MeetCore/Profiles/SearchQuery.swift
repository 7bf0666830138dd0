import Foundation

/// The parts of a search request that every search checks the same way.
enum SearchQuery {
    /// The refusal for a query parameter outside its bounds.
    static func outOfRange(_ field: String, _ bounds: ClosedRange<some Numeric & CustomStringConvertible>) -> MeetError {
        invalid([.init(field: field, code: "field.outOfRange", arguments: [
            "minimum": bounds.lowerBound.description, "maximum": bounds.upperBound.description,
        ])])
    }

    /// What a typed search (`q` of `/users` and `/activities`) may be: one line of at most
    /// 64 Unicode scalars, so that the work it costs is bounded before any matching starts.
    static let typedRule = TextRule(.oneLine, maximumScalars: 64)

    /// `text` as a typed search, or 422 naming `q`.
    static func typed(_ text: String) throws -> String {
        if let problem = typedRule.fieldProblem(with: text, field: "q") { throw invalid([problem]) }
        return text
    }

    /// 422 `request.invalidFields` naming the parameters that are wrong, as for body fields.
    static func invalid(_ problems: [MeetError.FieldProblem]) -> MeetError {
        .invalidFields(problems)
    }

    /// An FTS5 query that wants every word of `text` as the start of a word (`"ол"* "ко"*`),
    /// or nil when `text` has no words. Quoting each word keeps FTS5 syntax out of user input.
    static func ftsPrefixQuery(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber) }
        guard !words.isEmpty else { return nil }
        return words.prefix(8).map { "\"\($0)\"*" }.joined(separator: " ")
    }
}

/// Where a page of people sorted by name ends: the last name and id, opaque to clients.
struct UserCursor {
    var displayName: String
    var userId: String

    init(displayName: String, userId: String) {
        self.displayName = displayName
        self.userId = userId
    }

    init(token: String) throws {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let parts = try? JSONDecoder().decode([String].self, from: data), parts.count == 2 else {
            throw SearchQuery.invalid([.init(field: "cursor", code: "field.invalid")])
        }
        (displayName, userId) = (parts[0], parts[1])
    }

    var token: String {
        let data = (try? JSONEncoder().encode([displayName, userId])) ?? Data()
        return data.base64URLEncoded
    }
}
