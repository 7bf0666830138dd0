import Foundation

/// The strings of one language, read from its `.lproj` folder: `Localizable.strings` for plain
/// strings and `Localizable.stringsdict` for strings whose wording depends on a count.
struct StringTable: Sendable {
    /// A `.stringsdict` entry: a format whose `%#@name@` variables pick a plural form.
    struct PluralFormat: Sendable {
        var format: String
        var variables: [String: [PluralCategory: String]]
    }

    var strings: [String: String] = [:]
    var plurals: [String: PluralFormat] = [:]

    /// Reads the tables of `folder` (e.g. `.../uk.lproj`); either file may be absent.
    init(folder: URL) throws {
        let stringsFile = folder.appendingPathComponent("Localizable.strings")
        if FileManager.default.fileExists(atPath: stringsFile.path) {
            guard let strings = try Self.propertyList(stringsFile) as? [String: String] else {
                throw Localizer.LoadError(file: stringsFile.path, reason: "expected \"key\" = \"value\"; pairs")
            }
            if let repeated = try Self.repeatedKey(in: stringsFile) {
                throw Localizer.LoadError(file: stringsFile.path, reason: "\(repeated) is given twice")
            }
            self.strings = strings
        }
        let pluralsFile = folder.appendingPathComponent("Localizable.stringsdict")
        if FileManager.default.fileExists(atPath: pluralsFile.path) {
            guard let entries = try Self.propertyList(pluralsFile) as? [String: [String: Any]] else {
                throw Localizer.LoadError(file: pluralsFile.path, reason: "expected a dictionary of entries")
            }
            for (key, entry) in entries {
                plurals[key] = try Self.pluralFormat(entry, key: key, file: pluralsFile.path)
            }
        }
    }

    private static func propertyList(_ file: URL) throws -> Any {
        do {
            return try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
        } catch {
            throw Localizer.LoadError(file: file.path, reason: "\(error)")
        }
    }

    /// The first key given twice in the `.strings` text of `file`. A property list keeps the
    /// last of equal keys without a word, so a text edited in one place could be overridden by
    /// another. Reads the format's tokens: comments are skipped, a quoted string honours its
    /// backslash escapes, and the one an entry starts with (at the start or after a `;`) is a key.
    private static func repeatedKey(in file: URL) throws -> String? {
        let data = try Data(contentsOf: file)
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .utf16) else {
            throw Localizer.LoadError(file: file.path, reason: "neither UTF-8 nor UTF-16")
        }
        var seen = Set<String>()
        var startsEntry = true
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "/" where scalars.first == "/":
                scalars = scalars.drop { !CharacterSet.newlines.contains($0) }
            case "/" where scalars.first == "*":
                scalars = scalars.dropFirst()
                while !scalars.isEmpty, !(scalars.popFirst() == "*" && scalars.first == "/") {}
                scalars = scalars.dropFirst()
            case "\"":
                var quoted = String.UnicodeScalarView()
                while let next = scalars.popFirst(), next != "\"" {
                    quoted.append(next == "\\" ? scalars.popFirst() ?? next : next)
                }
                if startsEntry, !seen.insert(String(quoted)).inserted { return String(quoted) }
                startsEntry = false
            case ";":
                startsEntry = true
            default:
                break
            }
        }
        return nil
    }

    /// Checks one entry against the `.stringsdict` format: a `NSStringLocalizedFormatKey` and,
    /// for every variable, a `NSStringPluralRuleType` spec with at least the `other` form.
    private static func pluralFormat(_ entry: [String: Any], key: String, file: String) throws -> PluralFormat {
        guard let format = entry["NSStringLocalizedFormatKey"] as? String else {
            throw Localizer.LoadError(file: file, reason: "\(key): missing NSStringLocalizedFormatKey")
        }
        var variables: [String: [PluralCategory: String]] = [:]
        for (name, value) in entry where name != "NSStringLocalizedFormatKey" {
            guard let spec = value as? [String: String],
                  spec["NSStringFormatSpecTypeKey"] == "NSStringPluralRuleType",
                  spec["other"] != nil else {
                throw Localizer.LoadError(file: file, reason: "\(key).\(name): expected a plural rule with an 'other' form")
            }
            var forms: [PluralCategory: String] = [:]
            for category in PluralCategory.allCases {
                forms[category] = spec[category.rawValue]
            }
            variables[name] = forms
        }
        return PluralFormat(format: format, variables: variables)
    }
}
