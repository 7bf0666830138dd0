import Testing
@testable import MeetCore

/// What a text field refuses, read by bytes for ASCII and by scalars otherwise (both give the
/// same answers), and a chat message's length is counted in scalars however it is encoded.
@Suite struct TextRuleTests {
    @Test(arguments: [
        ("plain words", false, false),
        ("two\nlines", true, false),
        ("tab\there", true, true),
        ("bell\u{07}", true, true),
        ("delete\u{7F}", true, true),
        ("café\nnext", true, false),
        ("café\u{85}", true, true),       // C1: NEXT LINE
        ("\u{07}café", true, true),       // refused before the first non-ASCII byte
        ("ok \u{202E}evil", true, true),  // RIGHT-TO-LEFT OVERRIDE
        ("para\u{2029}graph", true, true),
        ("кафе о сьомій", false, false),
        ("", false, false),
    ])
    func refusedCharacters(text: String, oneLineRefuses: Bool, multiLineRefuses: Bool) {
        #expect(TextRule(.oneLine, maximumScalars: 100).refusesCharacters(in: text) == oneLineRefuses)
        #expect(TextRule(.multiLine, maximumScalars: 100).refusesCharacters(in: text) == multiLineRefuses)
    }

    @Test(arguments: [
        (String(repeating: "a", count: ChatDraft.maximumLength), true),
        (String(repeating: "a", count: ChatDraft.maximumLength + 1), false),
        (String(repeating: "é", count: ChatDraft.maximumLength), true),
        (String(repeating: "é", count: ChatDraft.maximumLength + 1), false),
        (String(repeating: "🙂", count: ChatDraft.maximumLength), true),
    ])
    func aMessageIsMeasuredInScalars(text: String, passes: Bool) {
        let draft = ChatDraft(text: text, clientMessageId: "c1")
        #expect(((try? draft.validated()) != nil) == passes, "\(text.unicodeScalars.count) scalars")
    }
}
