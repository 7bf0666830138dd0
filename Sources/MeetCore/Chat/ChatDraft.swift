import Foundation

/// What a member sends to a room: `{text, clientMessageId, attachments?, replyToSeq?}`,
/// checked field by field so that one refusal names every problem.
public struct ChatDraft: Sendable, Decodable {
    /// The longest message, in Unicode scalars (what a client can count the same way).
    public static let maximumLength = 4000
    /// The longest `clientMessageId` a client may choose.
    public static let maximumClientMessageIDLength = 64
    /// The most photos one message may carry.
    public static let maximumAttachments = 10

    /// The message, trimmed when stored; at most 4000 Unicode scalars, may be empty when there are attachments.
    public var text: String
    /// The sender's own id for the message, 1–64 bytes: a resend with the same one is answered with the stored message.
    public var clientMessageId: String
    /// Ids of the sender's uploaded photos; at most 10.
    public var attachments: [String]?
    /// The seq of an earlier message of the room that this one answers.
    public var replyToSeq: Int64?

    /// Makes a draft as a client's SEND frame would carry it; storing checks it.
    public init(text: String, clientMessageId: String, attachments: [String]? = nil, replyToSeq: Int64? = nil) {
        self.text = text
        self.clientMessageId = clientMessageId
        self.attachments = attachments
        self.replyToSeq = replyToSeq
    }

    private enum CodingKeys: String, CodingKey { case text, clientMessageId, attachments, replyToSeq }

    /// Reads a client's body. `text` may be left out (or null) when the message carries photos:
    /// it is then empty, and ``validated()`` names it when there are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
        clientMessageId = try container.decode(String.self, forKey: .clientMessageId)
        attachments = try container.decodeIfPresent([String].self, forKey: .attachments)
        replyToSeq = try container.decodeIfPresent(Int64.self, forKey: .replyToSeq)
    }

    /// The text as stored (trimmed), or a refusal naming the fields that are wrong. A message
    /// with attachments may have no text; whether the sender owns them is checked on storing.
    /// `textMayBeEmpty`: an edit's text, whose message may carry photos (``editedText(_:)``).
    func validated(textMayBeEmpty: Bool = false) throws -> String {
        var problems: [MeetError.FieldProblem] = []
        let text = self.text.trimmingWhitespace
        let attachments = self.attachments ?? []
        if text.isEmpty && attachments.isEmpty && !textMayBeEmpty { problems.append(.init(field: "text", code: "field.required")) }
        // No more scalars than bytes: only a long text needs its scalars counted.
        if text.utf8.count > Self.maximumLength, text.unicodeScalars.count > Self.maximumLength {
            problems.append(.init(field: "text", code: "chatMessage.tooLong", arguments: ["maximum": String(Self.maximumLength)]))
        }
        if TextRule(.multiLine, maximumScalars: Self.maximumLength).refusesCharacters(in: text) { problems.append(.init(field: "text", code: "field.invalidCharacters")) }
        if clientMessageId.isEmpty || clientMessageId.utf8.count > Self.maximumClientMessageIDLength
            || clientMessageId.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            problems.append(.init(field: "clientMessageId", code: "field.invalid"))
        }
        if attachments.count > Self.maximumAttachments {
            problems.append(.init(field: "attachments", code: "field.tooMany", arguments: ["maximum": String(Self.maximumAttachments)]))
        } else if Set(attachments).count < attachments.count || !attachments.allSatisfy(RandomToken.isWellFormedId) {
            problems.append(.init(field: "attachments", code: "field.invalid"))
        }
        if let replyToSeq, replyToSeq < 1 { problems.append(.init(field: "replyToSeq", code: "chatMessage.replyNotFound")) }
        guard problems.isEmpty else { throw MeetError.invalidFields(problems) }
        return text
    }

    /// The new text of an edit, checked as a message's text and trimmed. It may be empty here:
    /// whether its message may go without text (it carries photos) is for ``ChatChange`` to tell.
    static func editedText(_ text: String) throws -> String {
        try ChatDraft(text: text, clientMessageId: "edit").validated(textMayBeEmpty: true)
    }
}
