import Foundation

/// A name reduced to what people mean when they type it: lower case, accents and apostrophes
/// dropped, hyphens and runs of spaces made single spaces. "Trail-Running " and "trail running"
/// have the same key, and so do "Кавʼярня" and "кав'ярня".
struct SearchKey: Equatable {
    let text: String

    init(_ name: String) {
        // Folding diacritics also folds й→и and ї→і, which is what a hurried typist does anyway.
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var text = ""
        var pendingSpace = false
        for character in folded {
            if "'’ʼ`".contains(character) { continue }
            if character.isWhitespace || character == "-" || character == "_" {
                pendingSpace = !text.isEmpty
                continue
            }
            if pendingSpace { text.append(" ") }
            pendingSpace = false
            text.append(character)
        }
        self.text = text
    }

    /// The words of the key, each a place where a typed prefix may start.
    var words: [Substring] { text.split(separator: " ") }

    /// The key without spaces, so that "boardgames" and "board games" compare equal.
    var compact: String { text.replacingOccurrences(of: " ", with: "") }
}

/// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a
/// substring): insertions, deletions, substitutions and swaps of neighbours count one each.
/// Works on Unicode scalars: keys are folded, so a scalar is a letter, and comparing scalars
/// is much cheaper than comparing `Character`s.
func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
}

/// How far `typed` is from being the start of `word`: the smallest edit distance between it
/// and a prefix of `word` one character shorter, as long, or one longer ("hikng" is one edit
/// from "hiking").
func prefixEditDistance(_ typed: [Unicode.Scalar], _ word: [Unicode.Scalar]) -> Int {
    var best = Int.max
    for length in max(0, typed.count - 1)...(typed.count + 1) where length <= word.count {
        best = min(best, editDistance(typed, Array(word.prefix(length))))
    }
    return best == Int.max ? editDistance(typed, word) : best
}
