/// How well an activity's names answer what someone typed, as a rank: 0 is an exact name,
/// then the start of the name, then the start of a later word, then the start of a word with
/// a typo or two (one from four letters typed, two from six); nil when nothing is close.
enum ActivityMatching {
    static let exact = 0
    static let namePrefix = 1
    static let wordPrefix = 2
    /// A typo match ranks `typo + edits`.
    static let typo = 2

    static func rank(of activity: Activity, for query: SearchKey) -> Int? {
        activity.searchKeys.compactMap { rank(of: $0, for: query) }.min()
    }

    static func rank(of name: SearchKey, for query: SearchKey) -> Int? {
        let typed = query.text
        if typed.isEmpty || name.text == typed { return exact }
        if name.text.hasPrefix(typed) { return namePrefix }
        // Every word start, with the rest of the name, so that "country ski" finds
        // "Cross-country skiing".
        let tails = name.words.map { name.text[$0.startIndex...] }
        if tails.contains(where: { $0.hasPrefix(typed) }) { return wordPrefix }
        let typedScalars = Array(typed.unicodeScalars)
        // Three letters leave too little to tell a typo from another word.
        guard typedScalars.count >= 4 else { return nil }
        let allowedEdits = typedScalars.count >= 6 ? 2 : 1
        let edits = tails.map { prefixEditDistance(typedScalars, Array($0.unicodeScalars)) }.min() ?? .max
        return edits <= allowedEdits ? typo + edits : nil
    }

    /// Whether a proposed name is the same activity as an existing name, give or take a typo:
    /// none allowed below five letters, one below ten, two from there.
    static func isNearDuplicate(_ proposed: SearchKey, of existing: SearchKey) -> Bool {
        let a = Array(proposed.compact.unicodeScalars)
        let b = Array(existing.compact.unicodeScalars)
        let allowedEdits = min(a.count, b.count) < 5 ? 0 : min(a.count, b.count) < 10 ? 1 : 2
        return abs(a.count - b.count) <= allowedEdits && editDistance(a, b) <= allowedEdits
    }
}
