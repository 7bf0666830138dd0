import Foundation
import Hummingbird
import Stomp
import Testing
@testable import MeetServer

@Suite("HTTP building blocks")
struct HTTPPartsTests {
    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("BEARER abc", "abc"),
        ("Basic abc", nil), ("Bearer", nil), ("Bearer   ", nil), ("", nil),
        ("Bearer\tabc", "abc"), (" Bearer abc", "abc"), ("Bearer a b", nil), ("Bearerabc", nil), ("Bearer abc==", "abc=="),
        ("bEaReR abc\t ", "abc"), ("Béarer abc", nil), ("Bearer ábc", "ábc"), ("Bearer\u{A0}abc", nil), ("Bearers abc", nil),
    ] as [(String, String?)])
    func bearerTokens(header: String, token: String?) {
        // One reading for the REST middleware, the WebSocket upgrade and STOMP CONNECT.
        #expect(BearerCredential.token(in: header) == token)
        #expect(StompCredentials(headers: ["Authorization": header]).bearerToken == token)
    }

    /// Only a query with `%00` (or a NUL byte) is decoded to look for a NUL.
    @Test(arguments: [
        ("q=Mal%00lory", true), ("a=%%00", true), ("a=%0%00", true), ("a=\u{0}", true),
        ("a=%0", false), ("a=100%25", false), ("a=%2500", false), ("a=0%200", false), ("", false),
    ])
    func queriesThatMayHoldNUL(query: String, mayHold: Bool) {
        #expect(NULField.mayHoldNUL(query: query) == mayHold)
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
