import Foundation

/// The checked fields of a registration: every invalid field is reported at once.
struct RegistrationForm {
    var email: String
    var displayName: String
    var locale: String

    /// A display name goes into mails and other people's screens: one line, bounded.
    static let displayNameRule = TextRule(.oneLine, maximumScalars: 80)

    init(email: String, password: String, displayName: String, locale: String) throws {
        var problems: [MeetError.FieldProblem] = []
        self.email = Self.normalizedEmail(email)
        if !EmailAddress.isValid(self.email) {
            problems.append(.init(field: "email", code: "email.invalid"))
        }
        if let problem = PasswordPolicy.problem(with: password, field: "password") {
            problems.append(problem)
        }
        self.displayName = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        if self.displayName.isEmpty {
            problems.append(.init(field: "displayName", code: "field.required"))
        } else if let problem = Self.displayNameRule.fieldProblem(with: self.displayName, field: "displayName") {
            problems.append(problem)
        }
        self.locale = locale
        if !Self.isLanguageTag(locale) {
            problems.append(.init(field: "locale", code: "locale.invalid"))
        }
        if !problems.isEmpty { throw MeetError.invalidFields(problems) }
    }

    static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A BCP 47-shaped tag such as `en`, `uk`, `pt-BR`.
    static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = subtags.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
