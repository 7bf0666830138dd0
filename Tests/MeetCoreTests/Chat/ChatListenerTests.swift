import Foundation
import Synchronization
import Testing
@testable import MeetCore

/// The broker hears of every committed batch through ``ChatListener``; its listeners must be
/// called the same way at the thousandth batch as at the first. A closure kept bare in a
/// `Mutex` grew two thunks per read, so the broadcast ran ever deeper (and would overflow the
/// writer's stack after enough batches).
@Suite struct ChatListenerTests {
    @Test func listenersAreCalledAtTheSameDepthEveryTime() {
        let listener = ChatListener()
        let depths = Mutex<[Int]>([])
        let record: @Sendable () -> Void = { depths.withLock { $0.append(Thread.callStackReturnAddresses.count) } }
        listener.setMessages { _ in record() }
        listener.setDepartures { _ in record() }
        let message = [ChatMessage(
            id: "c1", roomId: "r1", meetingId: "m", recipientId: nil, seq: 1, type: .message, senderId: "u",
            senderName: "U", senderPhotoId: nil, text: "hi", attachments: [], replyToSeq: nil,
            sentAt: Date(timeIntervalSince1970: 0), clientMessageId: "k", refersToSeq: nil, system: nil,
            editedAt: nil, deletedAt: nil)]
        let departure = [ChatDeparture(meetingId: "m", userId: "u")]
        for _ in 0..<1_000 { listener.announce(message, departure) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 2_000)
        #expect(Set(seen).count <= 2, "listeners called at depths \(seen.min() ?? 0)…\(seen.max() ?? 0)")
    }
}
