import GRDB

/// A page of one room's history, newest first, and where the next (older) page starts.
public struct ChatHistoryPage: Sendable {
    /// The page's messages, newest first, in their latest state.
    public var messages: [ChatMessage]
    /// The `beforeSeq` of the next, older page; nil when this page reaches the room's first row.
    public var nextBeforeSeq: Int64?

    /// Reads one row more than `limit`, so a last page that is exactly full says it is the last.
    init(of roomId: String, before seq: Int64?, limit: Int, in db: Database) throws {
        let rows = try Row.fetchAll(db, sql: ChatMessage.selection + """
             WHERE chatMessage.roomId = ? AND chatMessage.seq < ? ORDER BY chatMessage.seq DESC LIMIT ?
            """, arguments: [roomId, seq ?? Int64.max, limit + 1]).map(ChatMessage.init(row:))
        messages = Array(rows.prefix(limit))
        nextBeforeSeq = rows.count > limit ? messages.last?.seq : nil
    }
}
