/// Fills a localized format with named arguments.
///
/// Arguments are named, so formats name them with the `.stringsdict` variable syntax
/// `%#@name@` in both kinds of table. In a plain string the variable becomes the argument's
/// text. In a `.stringsdict` entry that defines the variable, its plural form is chosen by the
/// argument's value under the language's CLDR rule, and a format specifier in that form
/// (`%d`, `%ld`, `%@`, ...) becomes the value. `%%` is a percent sign.
struct LocalizedFormat {
    var variables: [String: [PluralCategory: String]]
    var rule: PluralRule
    var arguments: [String: String]

    func render(_ format: String) -> String {
        render(format, value: nil, depth: 0)
    }

    /// `value` is the number a plural form stands for, substituted for its specifier.
    private func render(_ format: String, value: String?, depth: Int) -> String {
        var output = ""
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            output += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                output += "%"
                rest = rest.dropFirst()
            } else if rest.hasPrefix("#@"), let end = rest.dropFirst(2).firstIndex(of: "@") {
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<end])
                output += substitute(name, depth: depth) ?? "%" + rest[...end]
                rest = rest[rest.index(after: end)...]
            } else if let value, let length = Self.specifierLength(rest) {
                output += value
                rest = rest.dropFirst(length)
            } else {
                output += "%"
            }
        }
        return output + rest
    }

    /// The text for `%#@name@`, or nil when the caller gave no such argument.
    private func substitute(_ name: String, depth: Int) -> String? {
        guard let argument = arguments[name] else { return nil }
        // Forms may nest variables; a cycle in a broken table must not loop forever.
        guard let forms = variables[name], depth < 8 else { return argument }
        let operands = PluralOperands(argument)
        var category = operands.map(rule.category) ?? .other
        // Like Apple's, a `zero` form applies to 0 in every language, whatever its rule.
        if let operands, operands.integerIsZero, operands.visibleFractionDigits == 0, forms[.zero] != nil {
            category = .zero
        }
        let form = forms[category] ?? forms[.other] ?? argument
        return render(form, value: argument, depth: depth + 1)
    }

    /// The length of a printf conversion such as `d`, `ld`, `lld`, `@`, `.1f` at the start of
    /// `text` (the `%` already consumed), or nil when none starts there.
    private static func specifierLength(_ text: Substring) -> Int? {
        var length = 0
        var characters = text.makeIterator()
        while let character = characters.next() {
            length += 1
            if "diouxXeEfgGs@".contains(character) { return length }
            if !"-+ 0#123456789.hlqztj".contains(character) { return nil }
        }
        return nil
    }
}
