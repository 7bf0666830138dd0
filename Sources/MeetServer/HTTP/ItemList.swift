import Hummingbird

/// The one list envelope, `{"items": [...], "nextCursor": "..." | null}` (docs/conventions.md):
/// every list answers it, paged or not, so that clients read all lists alike and paging can
/// come to a list later without changing its shape.
struct ItemList<Item: Encodable & Sendable>: ResponseEncodable, Sendable {
    var items: [Item]
    /// Where the next page starts (sent back as `cursor`); null on the last page.
    var nextCursor: String? = nil

    private enum CodingKeys: String, CodingKey {
        case items, nextCursor
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        // An explicit null: synthesized coding would leave the key out on the last page.
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
