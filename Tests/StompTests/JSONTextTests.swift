import Foundation
import Stomp
import Testing

/// The shared escaper writes JSON that parses back to the very text, whatever it holds.
@Suite struct JSONTextTests {
    @Test(arguments: ["plain", "", "a \"quote\" \\ back/slash", "lines\n\r\t\u{08}\u{0C}", "\u{0}\u{1}\u{1F}\u{7F}", "Київ 🎲 \u{2028}"])
    func roundTrips(text: String) throws {
        let quoted = JSONText.quoted(text)
        let parsed = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String
        #expect(parsed == text, "\(quoted)")
    }

    @Test func writesShortEscapesAndLeavesSlashes() {
        #expect(JSONText.quoted("a/b\n\u{1}\"") == #""a/b\n\u0001\"""#)
    }
}
