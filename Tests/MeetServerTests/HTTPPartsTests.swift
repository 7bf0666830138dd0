import Foundation
import Hummingbird
import Testing
@testable import MeetServer

@Suite("HTTP building blocks")
struct HTTPPartsTests {
    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("BEARER abc", "abc"),
        ("Basic abc", nil), ("Bearer", nil), ("Bearer   ", nil), ("", nil),
    ] as [(String, String?)])
    func bearerTokens(header: String, token: String?) {
        #expect(BearerAuthMiddleware.bearerToken(in: header) == token)
    }

    @Test(arguments: [
        ("uk-UA,uk;q=0.9,en;q=0.8", "uk"), ("EN", "en"), ("*", "en"), (nil, "en"), ("", "en"), ("de-CH", "de"),
    ] as [(String?, String)])
    func newAccountLocale(header: String?, locale: String) {
        #expect(preferredLanguage(header) == locale)
    }

    @Test func routePatternsMatchPaths() {
        let meeting = RouterPath("/api/v1/meetings/{id}").components
        #expect(RouteTable.matches(meeting, ["api", "v1", "meetings", "42"]))
        #expect(!RouteTable.matches(meeting, ["api", "v1", "meetings"]))
        #expect(!RouteTable.matches(meeting, ["api", "v1", "meetings", "42", "join"]))
        #expect(RouteTable.matches(RouterPath("/media/**").components, ["media", "a", "b"]))
    }

    @Test(arguments: [
        ("{\"a\":[1,{\"b\":2}]}", 3), ("\"[[[\"", 0), ("[\"\\\"[\"]", 1), ("", 0),
    ])
    func nestingDepth(json: String, depth: Int) {
        #expect(CheckedJSONDecoder.nestingDepth(of: Data(json.utf8)) == depth)
    }
}
