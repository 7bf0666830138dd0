@testable import HTTPLoadCore
import Testing

@Suite struct RequestFileTests {
    @Test func readsMethodTargetAndFieldsSeparatedByTabs() throws {
        let text = "GET /api/v1/meetings?lat=50.45&lon=30.52\tAuthorization: Bearer abc\tAccept-Language: uk\n"
        let requests = try RequestFile.parse(text)
        #expect(requests == [
            LoadRequest(method: "GET", target: "/api/v1/meetings?lat=50.45&lon=30.52", fields: [
                .init(name: "Authorization", value: "Bearer abc"), .init(name: "Accept-Language", value: "uk"),
            ]),
        ])
    }

    @Test func skipsBlankLinesAndCommentsAndKeepsOrder() throws {
        let text = "# the anchor\n\nGET /hello\r\n   \nPOST /a\n# end"
        let requests = try RequestFile.parse(text)
        #expect(requests.map(\.method) == ["GET", "POST"])
        #expect(requests.map(\.target) == ["/hello", "/a"])
        #expect(requests.allSatisfy { $0.fields.isEmpty })
    }

    @Test func fieldValuesKeepTheirColonsAndInnerSpaces() throws {
        let requests = try RequestFile.parse("GET /\tX-Note:  a: b c")
        #expect(requests[0].fields == [.init(name: "X-Note", value: "a: b c")])
    }

    @Test(arguments: [
        ("GET /ok\nGET", 2, "expected 'METHOD /target', got 'GET'"),
        ("GET /a b", 1, "expected 'METHOD /target', got 'GET /a b'"),
        ("get /a", 1, "'get' is not an HTTP method"),
        ("GET a", 1, "the target 'a' must start with '/'"),
        ("GET /a\tno colon", 1, "expected 'Name: value', got 'no colon'"),
        ("GET /a\t: empty name", 1, "expected 'Name: value', got ': empty name'"),
        ("GET /a\tBad Name: x", 1, "expected 'Name: value', got 'Bad Name: x'"),
    ])
    func refusesMalformedLinesNamingTheLine(text: String, line: Int, reason: String) {
        #expect(throws: RequestFileError(line: line, reason: reason)) { try RequestFile.parse(text) }
    }

    @Test func refusesAFileWithoutRequests() {
        #expect(throws: RequestFileError(line: 0, reason: "no requests in the file")) {
            try RequestFile.parse("# nothing\n\n")
        }
    }
}
