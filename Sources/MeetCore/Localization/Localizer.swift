import Foundation

/// Looks up the app's user-facing text in the Apple-format tables under
/// `Resources/Localizable/<language>.lproj`, in the language a request asks for.
///
/// ```swift
/// let localizer = try Localizer.bundled()
/// let language = localizer.language(acceptLanguage: "uk-UA,uk;q=0.9,en;q=0.5")   // "uk"
/// localizer.localized("profile.invalid.detail", language: language, arguments: ["count": "2"])
/// ```
public struct Localizer: Sendable {
    /// A table that could not be read, with the file and what is wrong with it.
    public struct LoadError: Error, CustomStringConvertible {
        /// The table's path.
        public var file: String
        /// What is wrong with it, for the operator.
        public var reason: String
        /// The file and the reason, as one line for the log.
        public var description: String { "\(file): \(reason)" }
    }

    /// The language used when the client accepts none of ours, and for missing keys.
    public static let defaultLanguage = "en"

    let tables: [String: StringTable]

    /// The languages with a table, e.g. `["en", "uk"]`.
    public var languages: Set<String> { Set(tables.keys) }

    /// Reads every `<language>.lproj` folder in `directory`; it must contain an English one.
    public init(directory: URL) throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".lproj") }
        var tables: [String: StringTable] = [:]
        for folder in folders {
            let language = String(folder.dropLast(".lproj".count)).lowercased()
            tables[language] = try StringTable(folder: directory.appendingPathComponent(folder))
        }
        guard tables[Self.defaultLanguage] != nil else {
            throw LoadError(file: directory.path, reason: "no \(Self.defaultLanguage).lproj table")
        }
        self.tables = tables
    }

    /// The tables shipped with the package (`Resources/Localizable`), whose `.lproj` folders
    /// sit at the root of the MeetCore resource bundle.
    public static func bundled() throws -> Localizer {
        try Localizer(directory: Bundle.module.bundleURL)
    }

    /// The best of our languages for an `Accept-Language` header (q-values honoured),
    /// English when the header is absent or names none of them.
    public func language(acceptLanguage header: String?) -> String {
        header.flatMap { AcceptLanguage($0).bestMatch(in: languages) } ?? Self.defaultLanguage
    }

    /// The text of `key` in `language` (English when that table lacks the key) with its
    /// `%#@name@` variables filled from `arguments`, plural forms chosen by CLDR rules;
    /// nil when no table has the key.
    public func localized(_ key: String, language: String, arguments: [String: String] = [:]) -> String? {
        let language = language.lowercased()
        for candidate in [language, Self.defaultLanguage] {
            guard let table = tables[candidate] else { continue }
            let rule = PluralRule.forLanguage(candidate)
            // A counted form needs its counts; without them, the key's plain text if it has one.
            if let plural = table.plurals[key], plural.variables.keys.allSatisfy({ arguments[$0] != nil }) || table.strings[key] == nil {
                return LocalizedFormat(variables: plural.variables, rule: rule, arguments: arguments)
                    .render(plural.format)
            }
            if let text = table.strings[key] {
                return LocalizedFormat(variables: [:], rule: rule, arguments: arguments).render(text)
            }
        }
        return nil
    }

    /// The text of `key` in the best of our languages for `acceptLanguage`, an
    /// `Accept-Language` header or a bare language tag such as a user's stored locale.
    public func localized(_ key: String, arguments: [String: String], acceptLanguage: String?) -> String? {
        localized(key, language: language(acceptLanguage: acceptLanguage), arguments: arguments)
    }
}
