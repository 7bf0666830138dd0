import Foundation
import Testing

/// The code follows docs/conventions.md: `{id}` paths, one list envelope, and every problem
/// code listed once, well-formed and localized. A failure says which line to add or change.
@Suite("Conventions")
struct ConventionsLintTests {
    let lint = ConventionsLint.repository

    @Test func routesWriteParametersInBraces() throws {
        let findings = try lint.swiftSources().flatMap { ConventionsLint.colonParameters(in: $0.text, file: $0.path) }
            + ConventionsLint.colonParameters(inOpenAPI: try lint.text("docs/openapi.yaml"))
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    @Test func everyListAnswersTheEnvelope() throws {
        let findings = try lint.swiftSources().flatMap { ConventionsLint.listsOutsideTheEnvelope(in: $0.text, file: $0.path) }
            + ConventionsLint.listsOutsideTheEnvelope(inOpenAPI: try lint.text("docs/openapi.yaml"))
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    @Test func identifiersSpellIdLikeTheJSON() throws {
        let findings = try lint.swiftSources().flatMap { ConventionsLint.uppercaseIds(in: $0.text, file: $0.path) }
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    @Test func locksHoldNoBareClosures() throws {
        let findings = try lint.swiftSources().flatMap { ConventionsLint.bareClosuresInLocks(in: $0.text, file: $0.path) }
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    @Test func theLibrariesDocumentEveryPublicDeclaration() throws {
        let libraries = ["Sources/MeetCore/", "Sources/Stomp/", "Sources/WebSocket/"]
        let findings = try lint.swiftSources().filter { source in libraries.contains { source.path.hasPrefix($0) } }
            .flatMap { ConventionsLint.undocumentedDeclarations(in: $0.text, file: $0.path) }
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    @Test func everyProblemCodeIsWellFormedAndListed() throws {
        let uses = try lint.swiftSources().flatMap { ConventionsLint.codeUses(in: $0.text, file: $0.path) }
        let byCode = Dictionary(grouping: uses, by: \.code)
        let listed = Set(ConventionsLint.rows(inConventions: try lint.text("docs/conventions.md")).map(\.code))
        let misshapen = byCode.keys.sorted().compactMap { code in
            ConventionsLint.shapeProblem(code).map { "`\(code)` (\(byCode[code]![0].place)) \($0)" }
        }
        let missing = byCode.keys.sorted().filter { !listed.contains($0) && ConventionsLint.shapeProblem($0) == nil }
            .map { ConventionsLint.missingRowMessage($0, uses: byCode[$0]!) }
        let unused = listed.subtracting(byCode.keys).sorted()
            .map { "docs/conventions.md lists `\($0)`, which no file under Sources uses: remove its row, or rename it to the code now used" }
        let findings = misshapen + missing + unused
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
        #expect(byCode.keys.contains("meeting.notMember") && byCode.keys.contains("destination.unknown"), "the reader misses codes")
    }

    @Test func everyListedCodeIsListedOnceAndLocalized() throws {
        let rows = ConventionsLint.rows(inConventions: try lint.text("docs/conventions.md"))
        let twice = Dictionary(grouping: rows, by: \.code).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice == [], "listed more than once in docs/conventions.md: \(twice)")
        var findings: [String] = []
        for language in ["en", "uk"] {
            let keys = try lint.localizableKeys(language)
            for row in rows {
                for key in ConventionsLint.requiredKeys(for: row) where !keys.contains(key) {
                    findings.append("Resources/Localizable/\(language).lproj/Localizable.strings has no \"\(key)\"; "
                        + "add \"\(key)\" = \"...\"; in the block of its area")
                }
            }
        }
        #expect(findings == [], "\(findings.joined(separator: "\n"))")
    }

    /// The readers catch what they exist for, so that the checks above can fail.
    @Test func readersCatchTheBreakingExamples() {
        let names = "let userID = row.rowID; let ids: [UUID] = []; struct ChatRoomID {}"
        let declarations = """
            /// Documented.
            public struct A {}
            @discardableResult
            public func b() -> Int { 1 }
            /// Documented, under its attribute.
            @inlinable
            public func c() {}
            public static func == (l: A, r: A) -> Bool { true }
            """
        #expect(ConventionsLint.undocumentedDeclarations(in: declarations, file: "D.swift").map { $0.prefix(12) } == ["D.swift:4: `"])
        let found = ConventionsLint.uppercaseIds(in: names, file: "N.swift")
        #expect(found.count == 2 && found[0].contains("`userID`: write `userId`") && found[1].contains("`ChatRoomID`: write `ChatRoomId`"))

        let locks = """
            let a = Mutex<(@Sendable ([ChatMessage]) -> Void)?>(nil)
            let b = Mutex<@Sendable (_ id: String, _ body: ByteBuffer) throws -> Void>({ _, _ in })
            let c = Mutex<[@Sendable (Ending) -> Void]>([])
            let d = Mutex<(Int, String)>((0, ""))
            let e = Mutex<Listeners?>(nil)
            """
        #expect(ConventionsLint.bareClosuresInLocks(in: locks, file: "L.swift").map { $0.prefix(9) } == ["L.swift:1", "L.swift:2"])

        let routes = #"api.get("meetings/:id/members") { _, _ in }"# + "\n" + #"api.get("friends/{userId}") { _, _ in }"#
        #expect(ConventionsLint.colonParameters(in: routes, file: "R.swift").count == 1)
        #expect(ConventionsLint.colonParameters(inOpenAPI: "paths:\n  /api/v1/meetings/:id:\n").count == 1)

        let bodies = """
            struct FriendsBody: ResponseEncodable {
                var friends: [Friend]
            }
            struct ProfileBody: ResponseEncodable {
                var id: String
                var languages: [String]
            }
            """
        let lists = ConventionsLint.listsOutsideTheEnvelope(in: bodies, file: "B.swift")
        #expect(lists.count == 1 && lists[0].contains("FriendsBody"))
        let openAPI = """
            paths:
              /api/v1/friends:
                get:
                  responses:
                    '200':
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              friends:
                                type: array
            """
        #expect(ConventionsLint.listsOutsideTheEnvelope(inOpenAPI: openAPI).count == 1)

        let code = """
            throw MeetError(flag ? "auth.invalidToken" : "auth.required", status: 401)
            throw StompRefusal(code: "unknown-destination", message: "no")
            static let x = StompRefusal(
                code: "meeting.notMember", message: "no")
            problems.append(.init(field: "lat", code: "field.required"))
            form.problem("place", "places.notFound")
            """
        let uses = ConventionsLint.codeUses(in: code, file: "C.swift")
        #expect(uses.map(\.code).sorted() == ["auth.invalidToken", "auth.required", "field.required", "meeting.notMember", "places.notFound", "unknown-destination"])
        #expect(uses.first { $0.code == "meeting.notMember" }?.usedAs == "STOMP")
        #expect(uses.first { $0.code == "auth.required" }?.usedAs == "401")
        #expect(ConventionsLint.shapeProblem("unknown-destination") != nil)
        #expect(ConventionsLint.shapeProblem("places.notFound") != nil)
        #expect(ConventionsLint.shapeProblem("chatMessage.tooLong") == nil)
        #expect(ConventionsLint.missingRowMessage("chatMessage.tooLong", uses: [.init(code: "chatMessage.tooLong", place: "C.swift:3", usedAs: "422")])
            .hasSuffix("| `chatMessage.tooLong` | 422 | <what it means to a client> |"))
        #expect(ConventionsLint.requiredKeys(for: .init(code: "place.notFound", usedAs: "404, field")) == ["place.notFound.title", "place.notFound.detail"])
    }
}
