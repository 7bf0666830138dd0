import Foundation

/// A CLDR plural category: which form of a counted word a number takes.
public enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other
}

/// The CLDR operands of a decimal number written as text, kept as the digits that the rules
/// of the supported languages look at, so that huge counts never overflow.
struct PluralOperands: Equatable {
    /// `i % 100`: the last two digits of the integer part.
    var integerMod100: Int
    /// Whether the integer part is exactly 1 (English "one" needs the whole value).
    var integerIsOne: Bool
    /// Whether the integer part is 0.
    var integerIsZero: Bool
    /// `v`: how many fraction digits are written ("1.50" has 2).
    var visibleFractionDigits: Int

    /// Reads `"21"`, `"-5"`, `"1.5"`, `"1.0"`; anything else is not a number.
    init?(_ text: String) {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let integerPart = parts.first, !integerPart.isEmpty,
              integerPart.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }), parts.count == 1 || !fraction.isEmpty else {
            return nil
        }
        let significant = integerPart.drop { $0 == "0" }
        integerMod100 = Int(significant.suffix(2)) ?? 0
        integerIsOne = significant == "1"
        integerIsZero = significant.isEmpty
        visibleFractionDigits = fraction.count
    }
}

/// The cardinal plural rule of one language, from the CLDR plural rules.
///
/// Only the rules of the languages we ship are written out; any other language uses the
/// English rule, which is right for most Western European languages.
struct PluralRule: Sendable {
    let category: @Sendable (PluralOperands) -> PluralCategory

    /// The rule for a language code such as `uk` or `en-GB`.
    static func forLanguage(_ language: String) -> PluralRule {
        switch language.split(separator: "-").first.map({ $0.lowercased() }) {
        case "uk", "ru", "be": return .eastSlavic
        default: return .english
        }
    }

    /// one: i = 1 and v = 0; other: everything else.
    static let english = PluralRule { n in
        n.integerIsOne && n.visibleFractionDigits == 0 ? .one : .other
    }

    /// Ukrainian (and Russian, Belarusian) —
    /// one: v = 0 and i % 10 = 1 and i % 100 != 11;
    /// few: v = 0 and i % 10 = 2..4 and i % 100 != 12..14;
    /// many: v = 0 and (i % 10 = 0 or i % 10 = 5..9 or i % 100 = 11..14);
    /// other: fractions.
    static let eastSlavic = PluralRule { n in
        guard n.visibleFractionDigits == 0 else { return .other }
        let mod10 = n.integerMod100 % 10
        let mod100 = n.integerMod100
        if mod10 == 1 && mod100 != 11 { return .one }
        if (2...4).contains(mod10) && !(12...14).contains(mod100) { return .few }
        return .many
    }
}
