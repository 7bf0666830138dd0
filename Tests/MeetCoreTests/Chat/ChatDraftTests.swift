import Foundation
import Testing
@testable import MeetCore

@Suite struct ChatDraftTests {
    /// The post path trims without bridging to `NSString`; it must trim exactly as Foundation.
    @Test func trimmingWhitespaceIsFoundations() {
        let samples = [
            "", " ", "\n", "a", "ab", " a", "a ", "\ta\n", "a b", "~!", "\r\n", "\u{3000}слово\u{3000}", "é", " é ", "x\u{2028}",
            "\u{85}x", "\u{A0}x\u{A0}", "😀", " 😀 ", "a\u{200B}", "\u{200B}a", "\u{FEFF}a", "a\u{1680}", "\u{0}a",
        ]
        for text in samples {
            #expect(text.trimmingWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test func aDraftIsStoredTrimmed() throws {
        #expect(try ChatDraft(text: " \n hello\n ", clientMessageId: "c").validated() == "hello")
        #expect(try ChatDraft(text: "hello", clientMessageId: "c").validated() == "hello")
        #expect(throws: MeetError.self) { try ChatDraft(text: " \u{3000} ", clientMessageId: "c").validated() }
    }

    /// docs/chat.md: `text` is required unless the message carries photos. Left out or null,
    /// it is empty; without photos the refusal names it.
    @Test func aPhotoAloneNeedsNoTextKey() throws {
        for body in [#"{"clientMessageId":"c","attachments":["aaaaaaaaaaaaaaaaaaaaaa"]}"#,
                     #"{"text":null,"clientMessageId":"c","attachments":["aaaaaaaaaaaaaaaaaaaaaa"]}"#] {
            #expect(try JSONDecoder().decode(ChatDraft.self, from: Data(body.utf8)).validated() == "")
        }
        let noPhoto = try JSONDecoder().decode(ChatDraft.self, from: Data(#"{"clientMessageId":"c"}"#.utf8))
        #expect(throws: MeetError.invalidFields([.init(field: "text", code: "field.required")])) { try noPhoto.validated() }
    }
}
