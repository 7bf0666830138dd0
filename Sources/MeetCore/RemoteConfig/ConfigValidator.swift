import Foundation

/// Checks a configuration document against the rules of `config-schema.json`, plus what a
/// JSON Schema cannot say (a rollout's `from` below its `to`, how deep elements nest), and
/// collects every problem with its path rather than stopping at the first.
struct ConfigValidator {
    static let maxKeys = 500
    static let maxRules = 20
    static let maxElementDepth = 12
    static let standardElements: Set = ["Label", "Image", "Button", "Stack", "Spacer"]

    private(set) var problems: [MeetError.FieldProblem] = []

    mutating func check(document: ConfigValue) {
        guard let members = object(document, at: "", allowed: ["keys"], required: ["keys"]) else { return }
        guard let keys = members["keys"]?.members else { return problem("keys", "config.notObject") }
        if keys.count > Self.maxKeys { problem("keys", "config.tooManyKeys") }
        for (key, entry) in keys.sorted(by: { $0.key < $1.key }) {
            let path = "keys." + key
            guard Self.isKeyName(key) else {
                problem(path, "config.invalidKey")
                continue
            }
            check(entry: entry, at: path)
        }
    }

    private mutating func check(entry: ConfigValue, at path: String) {
        guard let members = object(entry, at: path, allowed: ["description", "value", "rules"], required: ["value"]) else { return }
        if let description = members["description"], description.string == nil { problem(path + ".description", "config.notString") }
        if let value = members["value"] { check(value: value, at: path + ".value") }
        guard let rulesValue = members["rules"] else { return }
        guard let rules = rulesValue.elements else { return problem(path + ".rules", "config.notArray") }
        if rules.count > Self.maxRules { problem(path + ".rules", "config.tooManyRules") }
        for (index, rule) in rules.enumerated() {
            let rulePath = "\(path).rules.\(index)"
            guard let parts = object(rule, at: rulePath, allowed: ["when", "value"], required: ["when", "value"]) else { continue }
            if let when = parts["when"] { check(condition: when, at: rulePath + ".when") }
            if let value = parts["value"] { check(value: value, at: rulePath + ".value") }
        }
    }

    mutating func check(condition: ConfigValue, at path: String) {
        let allowed: Set = ["platform", "appVersion", "locale", "country", "rollout"]
        guard let members = object(condition, at: path, allowed: allowed, required: []) else { return }
        if members.isEmpty { problem(path, "config.emptyCondition") }
        if let platform = members["platform"], platform.string.flatMap(ConfigClient.Platform.init) == nil {
            problem(path + ".platform", "config.invalidPlatform")
        }
        if let range = members["appVersion"], range.string.flatMap(AppVersionRange.init) == nil {
            problem(path + ".appVersion", "config.invalidVersionRange")
        }
        check(list: members["locale"], at: path + ".locale", code: "config.invalidLocale", isValid: Self.isLanguageTag)
        check(list: members["country"], at: path + ".country", code: "config.invalidCountry") { text in
            text.count == 2 && text.allSatisfy { ("A"..."Z").contains($0) }
        }
        if let rollout = members["rollout"] { check(rollout: rollout, at: path + ".rollout") }
    }

    private mutating func check(rollout: ConfigValue, at path: String) {
        guard let members = object(rollout, at: path, allowed: ["experiment", "from", "to"], required: ["experiment", "to"]) else { return }
        if let experiment = members["experiment"], !(experiment.string.map(Self.isExperimentName) ?? false) {
            problem(path + ".experiment", "config.invalidExperiment")
        }
        let from = members["from"] ?? .number(0)
        for (name, bound) in [("from", from), ("to", members["to"])] {
            guard let bound else { continue }
            guard let number = bound.number, (0...100).contains(number) else {
                let place = "\(path).\(name)"
                problem(place, "config.invalidPercent")
                continue
            }
        }
        if let low = from.number, let high = members["to"]?.number, low >= high, (0...100).contains(low), (0...100).contains(high) {
            problem(path + ".to", "config.emptyRollout")
        }
    }

    /// A value is plain JSON, or a UI element when it is an object with a `type`.
    private mutating func check(value: ConfigValue, at path: String) {
        if value["type"] != nil { check(element: value, at: path, depth: 1) }
    }

    private mutating func check(element: ConfigValue, at path: String, depth: Int) {
        guard depth <= Self.maxElementDepth else { return problem(path, "config.tooDeep") }
        guard let members = object(element, at: path, allowed: ["type", "parameters"], required: ["type"]) else { return }
        guard let type = members["type"]?.string, Self.standardElements.contains(type) || Self.isCustomElement(type) else {
            return problem(path + ".type", "config.unknownElement")
        }
        let parameterValue = members["parameters"] ?? .object([:])
        guard let parameters = parameterValue.members else { return problem(path + ".parameters", "config.notObject") }
        let at = path + ".parameters"
        switch type {
        case "Label":
            requireString("text", in: parameters, at: at)
            optional("style", in: parameters, at: at) { $0.string != nil }
        case "Image":
            if parameters["url"] == nil && parameters["mediaId"] == nil { problem(at, "config.imageWithoutSource") }
            optional("url", in: parameters, at: at) { $0.string != nil }
            optional("mediaId", in: parameters, at: at) { $0.string != nil }
        case "Button":
            requireString("title", in: parameters, at: at)
            requireString("action", in: parameters, at: at)
        case "Stack":
            if parameters["axis"] == nil { problem(at + ".axis", "field.required") }
            optional("axis", in: parameters, at: at) { ["horizontal", "vertical"].contains($0.string ?? "") }
            optional("spacing", in: parameters, at: at) { $0.number != nil }
            guard let children = parameters["children"] else { return problem(at + ".children", "field.required") }
            guard let list = children.elements else { return problem(at + ".children", "config.notArray") }
            for (index, child) in list.enumerated() {
                check(element: child, at: "\(at).children.\(index)", depth: depth + 1)
            }
        case "Spacer":
            optional("size", in: parameters, at: at) { $0.number != nil }
        default:
            break  // Custom elements carry whatever parameters their clients read.
        }
    }

    // MARK: - Shapes

    private mutating func object(_ value: ConfigValue, at path: String, allowed: Set<String>, required: [String]) -> [String: ConfigValue]? {
        guard let members = value.members else {
            problem(path, "config.notObject")
            return nil
        }
        for name in members.keys.sorted() where !allowed.contains(name) {
            let place = Self.join(path, name)
            problem(place, "config.unknownField")
        }
        for name in required where members[name] == nil {
            let place = Self.join(path, name)
            problem(place, "field.required")
        }
        return members
    }

    private mutating func requireString(_ name: String, in members: [String: ConfigValue], at path: String) {
        let place = Self.join(path, name)
        if members[name] == nil { return problem(place, "field.required") }
        optional(name, in: members, at: path) { $0.string != nil }
    }

    private mutating func optional(_ name: String, in members: [String: ConfigValue], at path: String, _ isValid: (ConfigValue) -> Bool) {
        let place = Self.join(path, name)
        if let value = members[name], !isValid(value) { problem(place, "field.invalid") }
    }

    private mutating func check(list: ConfigValue?, at path: String, code: String, isValid: (String) -> Bool) {
        guard let list else { return }
        guard let items = list.elements, !items.isEmpty else { return problem(path, "config.notArray") }
        for (index, item) in items.enumerated() where !(item.string.map(isValid) ?? false) {
            problem("\(path).\(index)", code)
        }
    }

    private mutating func problem(_ place: String, _ code: String) {
        problems.append(.init(field: place, code: code))
    }

    private static func join(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : path + "." + name
    }

    // MARK: - Names (the same patterns as the schema's)

    /// `home.banner`, `chat.maxAttachments`: dot-separated words, each starting lower-case.
    static func isKeyName(_ key: String) -> Bool {
        key.utf8.count <= 64 && key.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { word in
            guard let first = word.first, ("a"..."z").contains(first) else { return false }
            return word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    static func isExperimentName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.first.map { $0.isASCII && ($0.isLowercase || $0.isNumber) } == true
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    static func isCustomElement(_ type: String) -> Bool {
        type.hasPrefix("x-") && (3...42).contains(type.count)
            && type.dropFirst(2).allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    /// `uk`, `en-GB`: a language and an optional region, as clients send them.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ ("a"..."z").contains($0) }) else { return false }
        return parts.count == 1 || (parts.count == 2 && parts[1].count == 2 && parts[1].allSatisfy { ("A"..."Z").contains($0) })
    }
}
