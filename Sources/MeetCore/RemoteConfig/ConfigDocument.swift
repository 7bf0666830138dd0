import Foundation

/// A remote configuration document as operators write it: for each key a default value and
/// rules that give other values to some clients (`docs/remote-config.md`).
public struct ConfigDocument: Sendable {
    /// One key: the first rule whose condition holds gives the value, else `value`.
    public struct Entry: Sendable {
        /// The value when no rule applies.
        public var value: ConfigValue
        /// Checked in order; the first that holds wins.
        public var rules: [Rule]
    }

    /// A value for the clients a condition selects.
    public struct Rule: Sendable {
        /// Which clients the rule is for.
        public var when: ConfigCondition
        /// What those clients get.
        public var value: ConfigValue
    }

    /// The keys the document sets, by name.
    public var entries: [String: Entry]

    /// The document's JSON, validated; the problems name each bad place by its path.
    /// - Throws: `config.invalid` (422) with one field problem per bad place.
    public init(json: Data) throws {
        try self.init(ConfigValue.document(from: json))
    }

    /// Validates a parsed document.
    /// - Throws: `config.invalid` (422) with one field problem per bad place.
    public init(_ document: ConfigValue) throws {
        var validator = ConfigValidator()
        validator.check(document: document)
        guard validator.problems.isEmpty else { throw MeetError.invalidConfig(validator.problems) }
        // The validator has checked every shape read below.
        var entries: [String: Entry] = [:]
        for case let (key, entry) in document["keys"]?.members ?? [:] {
            let rules = (entry["rules"]?.elements ?? []).compactMap { rule -> Rule? in
                guard let when = rule["when"].flatMap(ConfigCondition.init), let value = rule["value"] else { return nil }
                return Rule(when: when, value: value)
            }
            entries[key] = Entry(value: entry["value"] ?? .null, rules: rules)
        }
        self.entries = entries
    }

    /// The values this client gets, key by key.
    public func values(for client: ConfigClient) -> [String: ConfigValue] {
        entries.mapValues { entry in
            entry.rules.first { $0.when.holds(for: client) }?.value ?? entry.value
        }
    }
}

extension MeetError {
    /// A configuration document that may not be stored or activated; each problem names the
    /// place (`keys.home.rules.0.when.appVersion`) and what is wrong with it.
    static func invalidConfig(_ problems: [FieldProblem]) -> MeetError {
        MeetError("config.invalid", status: 422, fieldProblems: problems)
    }
}

extension ConfigValue {
    /// JSON text as a value. - Throws: `config.invalid` (`config.notJSON`) when it is not JSON.
    static func document(from json: Data) throws -> ConfigValue {
        do {
            return try JSONDecoder().decode(ConfigValue.self, from: json)
        } catch {
            throw MeetError.invalidConfig([.init(field: "", code: "config.notJSON")])
        }
    }

    var members: [String: ConfigValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    var elements: [ConfigValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }
}
