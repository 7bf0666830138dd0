import Foundation
import Testing
@testable import MeetCore
@testable import MeetServer

/// A chat MESSAGE body written by hand says what `JSONEncoder` says of the same body (as the
/// REST history writes it), nulls included.
@Suite struct ChatMessageBodyTests {
    static let full = ChatMessage(
        id: "c1", roomId: "meeting:m1", meetingId: "m1", recipientId: nil, seq: 42, type: .message, senderId: "u/1",
        senderName: "Olena \"O\" \\ Київ 🎲\n\t\u{1}", senderPhotoId: "p1", text: "hi / <b>there</b>\r\n\u{1F}",
        attachments: ["a1", "a2"], replyToSeq: 7, sentAt: Date(timeIntervalSince1970: 1_800_000_000.75),
        clientMessageId: "client-1", refersToSeq: 3, system: ChatSystemNote(kind: "meetingEdited", arguments: ["what": "place", "x": "\""]),
        editedAt: Date(timeIntervalSince1970: 1_800_000_100.5), deletedAt: Date(timeIntervalSince1970: 946_684_800))

    static let bare = ChatMessage(
        id: "c2", roomId: "direct:u1:u2", meetingId: nil, recipientId: "u2", seq: 1, type: .deleted, senderId: nil,
        senderName: nil, senderPhotoId: nil, text: nil, attachments: [], replyToSeq: nil,
        sentAt: Date(timeIntervalSince1970: 0), clientMessageId: nil, refersToSeq: nil, system: nil, editedAt: nil, deletedAt: nil)

    func parsed(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test(arguments: [full, bare])
    func writesWhatJSONEncoderWrites(message: ChatMessage) throws {
        let body = ChatMessageBody(message, linkBase: "https://meet.example")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let written = Data(try body.json().readableBytesView)
        #expect(try parsed(written) == parsed(encoder.encode(body)), "\(String(decoding: written, as: UTF8.self))")
    }
}
