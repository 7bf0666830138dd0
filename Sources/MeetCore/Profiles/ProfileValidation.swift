import Foundation

/// Checking a profile a user sends: every invalid field is reported at once, with the count in
/// the detail ("2 fields in the profile need fixing").
extension Profile {
    /// Bounds of the free-text fields (``TextRule``: Unicode scalars, UTF-8 bytes, which
    /// control characters).
    public static let bioRule = TextRule(.multiLine, maximumScalars: 500)
    /// The city: one line, at most 100 characters.
    public static let cityRule = TextRule(.oneLine, maximumScalars: 100)
    /// The most activities a profile may list.
    public static let maximumActivities = 30
    /// The most languages a profile may list.
    public static let maximumLanguages = 10
    /// Birth dates before this are taken for typing mistakes.
    static let earliestBirthDate = "1900-01-01"

    /// Trims the text fields, drops repeated activities and languages, and checks what can be
    /// checked without the database (which activities exist is the service's part).
    public init(
        validating userId: String, displayName: String, bio: String = "", birthDate: String? = nil, city: String? = nil,
        photoId: String? = nil, activityIds: [String] = [], languages: [String] = [], today: Date
    ) throws {
        var problems: [MeetError.FieldProblem] = []
        self.userId = userId
        self.displayName = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        if self.displayName.isEmpty {
            problems.append(.init(field: "displayName", code: "field.required"))
        } else if let problem = RegistrationForm.displayNameRule.fieldProblem(with: self.displayName, field: "displayName") {
            problems.append(problem)
        }
        self.bio = bio.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = Self.bioRule.fieldProblem(with: self.bio, field: "bio") {
            problems.append(problem)
        }
        self.birthDate = birthDate
        if let birthDate, !Self.isPlausibleBirthDate(birthDate, today: today) {
            problems.append(.init(field: "birthDate", code: "birthDate.invalid"))
        }
        self.city = city.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let city = self.city, let problem = Self.cityRule.fieldProblem(with: city, field: "city") {
            problems.append(problem)
        }
        self.photoId = photoId
        if let photoId, !RandomToken.isWellFormedId(photoId) {
            problems.append(.init(field: "photoId", code: "field.invalid"))
        }
        self.activityIds = Self.unique(activityIds)
        if self.activityIds.count > Self.maximumActivities {
            problems.append(.init(field: "activityIds", code: "field.tooMany", arguments: ["maximum": String(Self.maximumActivities)]))
        }
        self.languages = Self.unique(languages.map { $0.lowercased() })
        if self.languages.count > Self.maximumLanguages {
            problems.append(.init(field: "languages", code: "field.tooMany", arguments: ["maximum": String(Self.maximumLanguages)]))
        }
        for (index, language) in languages.enumerated() where !RegistrationForm.isLanguageTag(language) {
            problems.append(.init(field: "languages.\(index)", code: "locale.invalid"))
        }
        if !problems.isEmpty { throw Self.invalid(problems) }
    }

    /// The refusal for a profile with these invalid fields.
    static func invalid(_ problems: [MeetError.FieldProblem]) -> MeetError {
        MeetError("profile.invalid", status: 422, arguments: ["count": String(problems.count)], fieldProblems: problems)
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The day a `yyyy-MM-dd` date names, if it is a real calendar day.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        // Rejects 2023-02-30 and the like instead of rolling them over into March.
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    static func isPlausibleBirthDate(_ text: String, today: Date) -> Bool {
        guard let born = day(text) else { return false }
        return text >= earliestBirthDate && born <= today
    }
}
