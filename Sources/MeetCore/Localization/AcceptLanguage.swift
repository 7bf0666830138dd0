import Foundation

/// The language ranges of an `Accept-Language` header (RFC 9110 §12.5.4) in the order the
/// client prefers them: by q-value, ties kept in the order written, `q=0` dropped.
struct AcceptLanguage {
    /// Lowercased ranges such as `uk-ua`, `uk`, `*`.
    let ranges: [String]

    init(_ header: String) {
        var weighted: [(range: String, quality: Double, position: Int)] = []
        for (position, item) in header.split(separator: ",").enumerated() {
            let parameters = item.split(separator: ";")
            let range = parameters.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard !range.isEmpty else { continue }
            var quality = 1.0
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                // A q-value that does not parse makes the whole entry unusable, not preferred.
                if pair.count == 2, pair[0].lowercased() == "q" {
                    quality = Double(pair[1]).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
                }
            }
            if quality > 0 { weighted.append((range, quality, position)) }
        }
        ranges = weighted
            .sorted { ($0.quality, -$0.position) > ($1.quality, -$1.position) }
            .map(\.range)
    }

    /// The first of `available` (lowercased language codes) that the client accepts:
    /// a range matches a table of the same tag or of its primary language (`uk-UA` → `uk`).
    func bestMatch(in available: Set<String>) -> String? {
        for range in ranges {
            if range == "*" { return nil }
            if available.contains(range) { return range }
            if let primary = range.split(separator: "-").first, available.contains(String(primary)) {
                return String(primary)
            }
        }
        return nil
    }
}
