import Foundation

/// The folded form under which names are indexed and queries looked up, so that case,
/// accents, apostrophes and punctuation never decide a match: "Kyiv" = "KYIV" = "Kyïv",
/// "Ivano-Frankivsk" = "ivano frankivsk".
///
/// `Resources/Gazetteer/build_gazetteer.py` folds the gazetteer's names the same way (its
/// `fold`); the two must stay in step.
enum SearchKey {
    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2018}", "\u{2019}", "\u{02BC}", "`"]

    /// Compatibility-decomposes, drops combining marks and apostrophes, lowercases, and
    /// turns every other run of characters that are not letters, marks or digits into one space.
    static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.canonicalCombiningClass != .notReordered || apostrophes.contains(scalar) {
                continue
            }
            guard isWordScalar(scalar) else {
                pendingSpace = true
                continue
            }
            if pendingSpace && !folded.isEmpty {
                folded.append(" ")
            }
            pendingSpace = false
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                // Final sigma is only a spelling of sigma.
                folded.append(lower == "\u{03C2}" ? "\u{03C3}" : lower)
            }
        }
        return String(folded)
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// Optimal string alignment distance (insertions, deletions, substitutions and swaps of
    /// neighbours), or `nil` as soon as it must exceed `limit`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        guard abs(a.count - b.count) <= limit else { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, beforePrevious[j - 2] + 1)
                }
                current[j] = best
                rowMinimum = min(rowMinimum, best)
            }
            if rowMinimum > limit { return nil }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
