/// One name looked up in the gazetteer: which towns it may mean, each with a penalty for
/// how loosely the name matched (0 exact, 1 a prefix, 1.5 per typo).
struct GazetteerSearch {
    static let prefixPenalty = 1.0
    static let typoPenalty = 1.5
    /// Short prefixes match thousands of names; past this many, the rest are skipped.
    static let maxPrefixKeys = 20_000

    let gazetteer: Gazetteer

    /// Typos tolerated in a name of `length` characters: none below 4, one up to 7, then two.
    static func allowedEdits(length: Int) -> Int {
        length < 4 ? 0 : length < 8 ? 1 : 2
    }

    /// The best penalty of each town `name` may mean.
    func penalties(for name: String) -> [Int32: Double] {
        let key = GazetteerKey.fold(name)
        let bytes = Array(key.utf8), scalars = Array(key.unicodeScalars)
        guard !scalars.isEmpty else { return [:] }
        var penalties: [Int32: Double] = [:]
        func add(key index: Int, penalty: Double) {
            for town in gazetteer.names.towns(ofKey: index) where penalty < penalties[town] ?? .infinity {
                penalties[town] = penalty
            }
        }
        if let exact = gazetteer.names.index(of: bytes) {
            add(key: exact, penalty: 0)
        }
        if scalars.count >= 2 {
            for index in gazetteer.names.indexes(withPrefix: bytes).prefix(Self.maxPrefixKeys) {
                add(key: index, penalty: Self.prefixPenalty)
            }
        }
        let edits = Self.allowedEdits(length: scalars.count)
        if edits > 0 {
            for index in gazetteer.typos.candidates(for: scalars, edits: edits) {
                let candidate = Array(String(decoding: gazetteer.names.key(index), as: UTF8.self).unicodeScalars)
                let distance = editDistance(scalars, candidate)
                if distance > 0 && distance <= edits {
                    add(key: index, penalty: Self.typoPenalty * Double(distance))
                }
            }
        }
        return penalties
    }
}
