/// A refusal the app explains to its user: a stable machine `code` (also the key of its
/// localized title and detail), the HTTP status that fits it, and field-level problems.
public struct MeetError: Error, Sendable, Equatable {
    /// One invalid field of a request, with the code of what is wrong with it.
    public struct FieldProblem: Sendable, Equatable {
        public var field: String
        public var code: String
        public init(field: String, code: String) {
            self.field = field
            self.code = code
        }
    }

    /// Stable machine code, e.g. `meeting.full`.
    public var code: String
    /// HTTP status that fits the refusal (404, 409, 422, ...).
    public var status: Int
    /// Values substituted into the localized detail, by name.
    public var arguments: [String: String]
    public var fieldProblems: [FieldProblem]

    public init(_ code: String, status: Int, arguments: [String: String] = [:], fieldProblems: [FieldProblem] = []) {
        self.code = code
        self.status = status
        self.arguments = arguments
        self.fieldProblems = fieldProblems
    }
}
