import Foundation

/// The folded form under which names are indexed and queries looked up, so that case,
/// accents, apostrophes and punctuation never decide a match: "Kyiv" = "KYIV" = "Kyïv",
/// "Ivano-Frankivsk" = "ivano frankivsk".
///
/// `Resources/Gazetteer/build_gazetteer.py` folds the gazetteer's names the same way (its
/// `fold`); the two must stay in step. (Activities' ``SearchKey`` folds with Foundation
/// instead; it has no file built elsewhere to agree with.)
enum GazetteerKey {
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
}
