/// A refusal the app explains to its user: a stable machine `code` (also the key of its
/// localized title and detail), the HTTP status that fits it, and field-level problems.
public struct MeetError: Error, Sendable, Equatable {
    /// One invalid field of a request, with the code of what is wrong with it.
    public struct FieldProblem: Sendable, Equatable {
        /// The field's path in the request body, dot-separated (`place.lat`, `inviteeIds.2`).
        public var field: String
        /// Stable code of the problem, also the key of its localized text (`field.required`).
        public var code: String
        /// Values substituted into the localized text, by name.
        public var arguments: [String: String]

        /// A problem of `field` with `code`, and the values its text needs.
        public init(field: String, code: String, arguments: [String: String] = [:]) {
            self.field = field
            self.code = code
            self.arguments = arguments
        }
    }

    /// Stable machine code, e.g. `meeting.full`.
    public var code: String
    /// HTTP status that fits the refusal (404, 409, 422, ...).
    public var status: Int
    /// Values substituted into the localized detail, by name.
    public var arguments: [String: String]
    /// Each invalid field, for `request.invalidFields` and similar refusals; empty otherwise.
    public var fieldProblems: [FieldProblem]
    /// Extra response headers the refusal needs, such as `Retry-After` for 429.
    public var headers: [String: String]

    /// A refusal with its code and status, and whatever it carries besides.
    public init(
        _ code: String,
        status: Int,
        arguments: [String: String] = [:],
        fieldProblems: [FieldProblem] = [],
        headers: [String: String] = [:]
    ) {
        self.code = code
        self.status = status
        self.arguments = arguments
        self.fieldProblems = fieldProblems
        self.headers = headers
    }
}

extension MeetError {
    /// 422 with one problem per invalid field; the codes say what is wrong with each.
    public static func invalidFields(_ problems: [FieldProblem]) -> MeetError {
        MeetError("request.invalidFields", status: 422, fieldProblems: problems)
    }

    /// 422 for a single invalid field.
    public static func invalidField(_ field: String, _ code: String, arguments: [String: String] = [:]) -> MeetError {
        invalidFields([FieldProblem(field: field, code: code, arguments: arguments)])
    }
}
