import Foundation

/// Reads the repository's sources, `docs/conventions.md`, `docs/openapi.yaml` and the
/// Localizable files, and says in words where they break docs/conventions.md; each finding
/// tells the author exactly what to change, since others add code here every day.
struct ConventionsLint {
    /// A problem code as the sources use it: where, and the HTTP status or `STOMP` next to it.
    struct CodeUse: Equatable {
        var code: String
        var place: String
        var usedAs: String
    }

    /// One row of the table in docs/conventions.md.
    struct Row: Equatable {
        var code: String
        var usedAs: String
    }

    let root: URL

    /// The repository this file is in.
    static let repository = ConventionsLint(
        root: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent())

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// `(path relative to the root, contents)` of every Swift file under `Sources`.
    func swiftSources() throws -> [(path: String, text: String)] {
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        return try walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .map { (String($0.path.dropFirst(root.path.count + 1)), try String(contentsOf: $0, encoding: .utf8)) }
            .sorted { $0.path < $1.path }
    }

    // MARK: Paths

    /// Route registrations whose path has a `:name` parameter instead of `{name}`.
    static func colonParameters(in text: String, file: String) -> [String] {
        matches(#"\.(?:get|post|put|patch|delete|head|on)\(\s*"([^"]*)""#, in: text).compactMap { match in
            let path = match.captures[0]
            guard path.split(separator: "/").contains(where: { $0.hasPrefix(":") }) else { return nil }
            return "\(file):\(match.line): route \"\(path)\" uses a :parameter; write it as {name} (docs/conventions.md, Paths)"
        }
    }

    /// `paths:` keys of the OpenAPI document with a `:name` parameter.
    static func colonParameters(inOpenAPI text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("  /") && $0.contains("/:") }
            .map { "docs/openapi.yaml: path \($0.trimmingCharacters(in: .whitespaces)) uses a :parameter; write it as {name}" }
    }

    // MARK: Lists

    /// Response bodies that wrap a bare list under another name than the `ItemList` envelope.
    static func listsOutsideTheEnvelope(in text: String, file: String) -> [String] {
        matches(#"(?m)^(?:public )?struct (\w+)[^{\n]*ResponseEncodable[^{\n]*\{\n((?:(?!^\}).*\n)*)^\}"#, in: text)
            .compactMap { match in
                let name = match.captures[0]
                guard name != "ItemList" else { return nil }
                let stored = matches(#"(?m)^    (?:public )?(?:var|let) (\w+): ([^={\n]+)$"#, in: match.captures[1])
                    .map { (name: $0.captures[0], type: $0.captures[1]) }
                guard !stored.isEmpty, stored.contains(where: { $0.type.hasPrefix("[") }),
                      stored.allSatisfy({ $0.type.hasPrefix("[") || $0.name == "nextCursor" }) else { return nil }
                return "\(file):\(match.line): \(name) answers a list as `\(stored[0].name)`; answer "
                    + "ItemList(items:nextCursor:) instead, `{\"items\": [...], \"nextCursor\": ...}` (docs/conventions.md, Lists)"
            }
    }

    /// Response properties in the OpenAPI paths that are arrays under another name than `items`.
    static func listsOutsideTheEnvelope(inOpenAPI text: String) -> [String] {
        let paths = text.components(separatedBy: "\ncomponents:")[0]
        var findings: [String] = []
        var path = "", inResponses = false
        let lines = paths.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("  /") { path = line.trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("      ") && !line.hasPrefix("       ") {
                inResponses = line == "      responses:"
            }
            guard inResponses, let property = matches(#"^ +(\w+):\s*(?:\{type: array|$)"#, in: line).first?.captures[0],
                  property != "items", property != "schema" else { continue }
            let arrayHere = line.contains("{type: array")
            let arrayNext = index + 1 < lines.count && lines[index + 1].trimmingCharacters(in: .whitespaces) == "type: array"
            if arrayHere || arrayNext {
                findings.append("docs/openapi.yaml \(path) answers a list as `\(property)`; use `items` and `nextCursor` (docs/conventions.md, Lists)")
            }
        }
        return findings
    }

    // MARK: Problem codes

    /// Every problem code written in `text`: a `MeetError`'s code (both branches of a choice),
    /// a field problem's or STOMP refusal's `code:`, and a form's `problem(field, code)`.
    static func codeUses(in text: String, file: String) -> [CodeUse] {
        var uses: [CodeUse] = []
        for match in matches(#"MeetError\(([^()]*?),\s*status:\s*(\d+)"#, in: text) {
            for literal in matches(#""([^"\\]*)""#, in: match.captures[0]) {
                uses.append(CodeUse(code: literal.captures[0], place: "\(file):\(match.line)", usedAs: match.captures[1]))
            }
        }
        for match in matches(#"(StompRefusal\(\s*)?\bcode:\s*"([^"\\]*)""#, in: text) {
            let stomp = !match.captures[0].isEmpty || nearbyText(before: match, in: text).contains("StompRefusal(")
            uses.append(CodeUse(code: match.captures[1], place: "\(file):\(match.line)", usedAs: stomp ? "STOMP" : "field"))
        }
        for match in matches(#"(?:invalidField|\bproblem)\(\s*[^,()]+,\s*"([^"\\]*)""#, in: text) {
            uses.append(CodeUse(code: match.captures[0], place: "\(file):\(match.line)", usedAs: "field"))
        }
        return uses
    }

    /// Why `code` breaks the `area.camelCase` rule with a singular area, or nil.
    static func shapeProblem(_ code: String) -> String? {
        guard !matches(#"^[a-z][a-zA-Z0-9]*\.[a-z][a-zA-Z0-9]*$"#, in: code).isEmpty else {
            return "is not area.camelCase (one dot, letters and digits, no hyphens)"
        }
        let area = code.split(separator: ".")[0]
        if area.hasSuffix("s") && !["status", "access", "address", "alias"].contains(area) {
            return "has a plural area word `\(area)`; use the singular (docs/conventions.md, Problem codes)"
        }
        return nil
    }

    /// The rows of the Codes table in docs/conventions.md.
    static func rows(inConventions text: String) -> [Row] {
        matches(#"(?m)^\| `([^`]+)` \| ([^|]+) \|"#, in: text).map {
            Row(code: $0.captures[0], usedAs: $0.captures[1].trimmingCharacters(in: .whitespaces))
        }
    }

    /// The row to paste into the table for a code used in the sources but not listed.
    static func missingRowMessage(_ code: String, uses: [CodeUse]) -> String {
        let usedAs = Array(Set(uses.map(\.usedAs))).sorted().joined(separator: ", ")
        return "docs/conventions.md has no row for `\(code)` (used at \(uses.map(\.place).joined(separator: ", "))); "
            + "add this line in the `\(code.split(separator: ".")[0])` block of its Codes table:\n"
            + "| `\(code)` | \(usedAs) | <what it means to a client> |"
    }

    /// Localizable keys (`.strings` and `.stringsdict`) of one language.
    func localizableKeys(_ language: String) throws -> Set<String> {
        let strings = try text("Resources/Localizable/\(language).lproj/Localizable.strings")
        let dictionary = try text("Resources/Localizable/\(language).lproj/Localizable.stringsdict")
        return Set(Self.matches(#"(?m)^"([^"]+)"\s*="#, in: strings).map { $0.captures[0] }
            + Self.matches(#"(?m)^\t?\s*<key>([^<]+\.(?:title|detail))</key>"#, in: dictionary).map { $0.captures[0] })
    }

    /// The Localizable keys a row needs: `.title` for a problem (HTTP or STOMP), `.detail`
    /// for a field-level code.
    static func requiredKeys(for row: Row) -> [String] {
        let parts = row.usedAs.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var keys: [String] = []
        if parts.contains(where: { $0 == "STOMP" || Int($0) != nil }) { keys.append(row.code + ".title") }
        if parts.contains("field") { keys.append(row.code + ".detail") }
        return keys
    }

    // MARK: Names

    /// Names other code chose, which keep their spelling: GRDB's and Apple's.
    static let foreignIdNames: Set<String> = ["rowID", "lastInsertedRowID", "appIDs"]

    /// Identifiers spelled `…ID` where ours say `…Id`, like the JSON keys (`userId`, `ChatRoomId`).
    static func uppercaseIds(in text: String, file: String) -> [String] {
        matches(#"\b([A-Za-z]*[a-z]IDs?)\b"#, in: text).compactMap { match in
            let name = match.captures[0]
            guard !foreignIdNames.contains(name) else { return nil }
            let fixed = name.replacingOccurrences(of: "ID", with: "Id", options: [.anchored, .backwards])
            return "\(file):\(match.line): `\(name)`: write `\(fixed)` (docs/conventions.md, Names in code)"
        }
    }

    // MARK: Locks

    /// Locks holding a closure bare (`Mutex<(@Sendable (X) -> Void)?>`): every
    /// `withLock { $0 }` wraps it in two more reabstraction thunks, so its calls grow deeper
    /// without end. Arrays of closures and closures inside a struct are fine.
    static func bareClosuresInLocks(in text: String, file: String) -> [String] {
        matches(#"\b(?:Mutex|NIOLockedValueBox)<\(?\s*(?:@Sendable\s*)?\([^()<>]*\)\s*(?:async\s*)?(?:throws\s*)?->"#, in: text).map { match in
            "\(file):\(match.line): a closure kept bare in a lock grows a thunk chain at every read: keep it in a struct (docs/conventions.md, Locks)"
        }
    }

    // MARK: Documentation

    /// Public declarations without a `///` line above them (attributes may stand between):
    /// the library modules document every one. Protocol witnesses that only restate their
    /// protocol (operators, a channel handler's `InboundIn`) need none.
    static func undocumentedDeclarations(in text: String, file: String) -> [String] {
        let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let declaration = #"^public (?:(?:static|final|mutating|convenience|nonisolated|indirect|private\(set\)) )*(?:func|var|let|struct|enum|class|init|case|protocol|typealias|actor)\b"#
        let witness = #"^public (?:static )?func [^\w\s(]|typealias (?:Inbound|Outbound)(?:In|Out)\b"#
        return lines.indices.compactMap { index in
            let line = lines[index]
            guard line.range(of: declaration, options: .regularExpression) != nil,
                  line.range(of: witness, options: .regularExpression) == nil else { return nil }
            guard let above = lines[..<index].lastIndex(where: { !$0.hasPrefix("@") }), lines[above].hasPrefix("///") else {
                return "\(file):\(index + 1): `\(line.prefix(80))` has no /// comment: say in a line what it is or why"
            }
            return nil
        }
    }

    // MARK: Matching

    struct Match {
        var captures: [String]
        var line: Int
    }

    /// Regex matches with their captures (empty for a group that did not take part) and line.
    static func matches(_ pattern: String, in text: String) -> [Match] {
        let regex = try! NSRegularExpression(pattern: pattern)
        let whole = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: whole).map { result in
            let captures = (1..<result.numberOfRanges).map { index in
                Range(result.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
            let start = Range(result.range, in: text)!.lowerBound
            return Match(captures: captures, line: text[..<start].reduce(1) { $1 == "\n" ? $0 + 1 : $0 })
        }
    }

    /// The line a match is on and the two before it, where a `StompRefusal(` that spans
    /// several lines opens.
    private static func nearbyText(before match: Match, in text: String) -> String {
        let lines = text.components(separatedBy: "\n")
        return lines[max(0, match.line - 3)..<match.line].joined(separator: "\n")
    }
}
