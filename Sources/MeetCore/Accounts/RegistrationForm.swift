import Foundation

/// The checked fields of a registration: every invalid field is reported at once.
struct RegistrationForm {
    var email: String
    var displayName: String
    var locale: String

    static let maximumDisplayNameLength = 80

    init(email: String, password: String, displayName: String, locale: String) throws {
        var problems: [MeetError.FieldProblem] = []
        self.email = Self.normalizedEmail(email)
        if !Self.isPlausibleEmail(self.email) {
            problems.append(.init(field: "email", code: "email.invalid"))
        }
        if let problem = PasswordPolicy.problem(with: password, field: "password") {
            problems.append(problem)
        }
        self.displayName = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        if self.displayName.isEmpty {
            problems.append(.init(field: "displayName", code: "field.required"))
        } else if self.displayName.count > Self.maximumDisplayNameLength {
            problems.append(.init(field: "displayName", code: "field.tooLong", arguments: ["maximum": String(Self.maximumDisplayNameLength)]))
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

    /// One `@`, something before it, a dotted domain after it, no spaces: what can be
    /// checked without sending mail (the confirmation mail checks the rest).
    static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty,
              !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
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
