import Foundation
import MeetCore
import NIOCore
import Testing
@testable import MeetServer

/// ``ChatDraftJSON`` reads plain chat bodies without `JSONDecoder`: whatever it reads must be
/// what `JSONDecoder` reads, and whatever is not plain it must leave to `JSONDecoder`.
@Suite struct ChatDraftJSONTests {
    /// Bodies as clients write them: read without `JSONDecoder`.
    static let plain = [
        #"{"text":"hello","clientMessageId":"c1"}"#,
        #"{"clientMessageId":"c1","text":"hi there 🎲 Київ"}"#,
        #" { "text" : "a" , "clientMessageId" : "c1" , "attachments" : [ "p1" , "p2" ] , "replyToSeq" : 12 } "#,
        "{\n\t\"text\": \"a\",\r\n\"clientMessageId\": \"c\"\n}\n",
        #"{"text":"","clientMessageId":"c","attachments":[]}"#,
        #"{"clientMessageId":"c","attachments":["p1"]}"#,
        #"{"text":"a","clientMessageId":"c","attachments":null,"replyToSeq":null}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":0}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":999999999999999999}"#,
        #"{"text":"   spaced   ","clientMessageId":"   "}"#,
        "{\"text\":\"a/b <i>x</i> \u{7F}\",\"clientMessageId\":\"k\"}",
    ]

    /// Bodies left to `JSONDecoder`: escapes, other keys, repeats, numbers it reads another way,
    /// malformed JSON, missing fields.
    static let other = [
        #"{"text":"a\"b","clientMessageId":"c"}"#, #"{"text":"a\nb","clientMessageId":"c"}"#,
        #"{"text":"\u00e9\ud83c\udfb2","clientMessageId":"c"}"#, #"{"text":"\ud800","clientMessageId":"c"}"#,
        #"{"te\u0078t":"a","clientMessageId":"c"}"#, #"{"text":"a","clientMessageId":"c","extra":1}"#,
        #"{"text":"a","text":"b","clientMessageId":"c"}"#, #"{"text":"a","clientMessageId":"c","replyToSeq":1.0}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":1e2}"#, #"{"text":"a","clientMessageId":"c","replyToSeq":-1}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":01}"#, #"{"text":"a","clientMessageId":"c","replyToSeq":"1"}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":9223372036854775807}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":99999999999999999999}"#,
        #"{"text":"a","clientMessageId":"c","attachments":["p1",]}"#, #"{"text":"a","clientMessageId":"c","attachments":[1]}"#,
        #"{"text":"a","clientMessageId":"c",}"#, #"{"text":"a"}"#, #"{"clientMessageId":"c"}"#, "{}", "", " ", "null",
        #"{"text":null,"clientMessageId":"c"}"#, #"{"text":1,"clientMessageId":"c"}"#, #"{"text":"a","clientMessageId":"c"} x"#,
        #"{"text":"a","clientMessageId":"c"}{}"#, #"["text"]"#, #"{"text":"a","clientMessageId":"c""#, #"{"text":"a,"clientMessageId":"c"}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":nul}"#, #"{"text":"a","clientMessageId":"c","replyToSeq":nullx}"#,
        #"{"text":"a","clientMessageId":"c","replyToSeq":true}"#, #"{ "text" :"a", "clientMessageId":"c", "attachments":[ ] }"#,
        #"{"text ":"a","clientMessageId":"c"}"#, #"{" text":"a","clientMessageId":"c"}"#, #"{"Text":"a","clientMessageId":"c"}"#,
        "{\"text\":\"a\u{1}\",\"clientMessageId\":\"c\"}", "\u{FEFF}{\"text\":\"a\",\"clientMessageId\":\"c\"}",
        "{\"text\":\"a\",\"clientMessageId\":\"c\"}\u{0}", "{\u{0B}\"text\":\"a\",\"clientMessageId\":\"c\"}",
    ]

    @Test(arguments: plain)
    func plainBodiesAreReadAsJSONDecoderReadsThem(_ body: String) throws {
        let fast = try #require(ChatDraftJSON.draft(from: ByteBuffer(string: body)))
        let decoded = try JSONDecoder().decode(ChatDraft.self, from: Data(body.utf8))
        #expect(Self.fields(fast) == Self.fields(decoded))
    }

    @Test(arguments: other)
    func whatIsReadAgreesWithJSONDecoderWhateverTheBody(_ body: String) {
        let fast = ChatDraftJSON.draft(from: ByteBuffer(string: body))
        let decoded = try? JSONDecoder().decode(ChatDraft.self, from: Data(body.utf8))
        if let fast { #expect(decoded.map(Self.fields) == Self.fields(fast), "read differently: \(body)") }
    }

    @Test func invalidUTF8IsLeftToJSONDecoder() {
        var body = ByteBuffer(string: #"{"text":"a"#)
        body.writeBytes([0xC3, 0x28, 0xFF])
        body.writeString(#"","clientMessageId":"c"}"#)
        #expect(ChatDraftJSON.draft(from: body) == nil)
    }

    private static func fields(_ draft: ChatDraft) -> [String] {
        [draft.text, draft.clientMessageId, draft.attachments.map { $0.joined(separator: "|") } ?? "nil",
         draft.replyToSeq.map(String.init) ?? "nil"]
    }
}
