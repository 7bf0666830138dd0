import Foundation

/// The activities every installation starts with, kept in `ActivityCatalog.tsv` (one per line:
/// id, English name, Ukrainian name) so that translators can edit them without touching code.
enum ActivityCatalog {
    struct Entry: Equatable {
        var id: String
        var english: String
        var ukrainian: String
    }

    /// The bundled catalog.
    static func entries() throws -> [Entry] {
        guard let url = Bundle.module.url(forResource: "ActivityCatalog", withExtension: "tsv") else {
            throw CatalogError(line: 0, reason: "ActivityCatalog.tsv is missing from the MeetCore resources")
        }
        return try parse(String(contentsOf: url, encoding: .utf8))
    }

    /// Reads the tab-separated text; the first line is the header.
    static func parse(_ text: String) throws -> [Entry] {
        var entries: [Entry] = []
        var ids = Set<String>()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().dropFirst() {
            guard !line.isEmpty else { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty }) else {
                throw CatalogError(line: index + 1, reason: "expected id, English name and Ukrainian name")
            }
            guard ids.insert(fields[0]).inserted else {
                throw CatalogError(line: index + 1, reason: "duplicate id \(fields[0])")
            }
            entries.append(Entry(id: fields[0], english: fields[1], ukrainian: fields[2]))
        }
        return entries
    }

    struct CatalogError: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "ActivityCatalog.tsv:\(line): \(reason)" }
    }
}
