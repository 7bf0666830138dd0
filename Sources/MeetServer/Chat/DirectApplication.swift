import Foundation
import MeetCore
import NIOCore
import Stomp

/// Direct messages on the broker: `SEND /app/direct.{userId}` writes to a friend, `.edit` and
/// `.delete` change one's own earlier message (events with their own seq), and every session of
/// both users subscribed to `/user/queue/direct` gets what is stored (the sender's other devices
/// too). Each delivery carries `seq` (the conversation's) and
/// `inbox-seq` (the user's own order over all their conversations); `SUBSCRIBE
/// /user/queue/direct` with `since-seq:N` first replays the user's inbox after position N.
struct DirectApplication: Sendable {
    static let queue = "/user/queue/direct"
    let chat: ChatService
    let linkBase: String
    let typing: TypingRelay

    func receive(_ action: DirectAction, body: Data, from user: String, broker: StompBroker, on eventLoop: any EventLoop) async throws {
        switch action.kind {
        case .message:
            _ = try await chat.postDirect(
                try ChatRoomApplication.decode(ChatDraft.self, body, shape: "{text, clientMessageId, attachments?, replyToSeq?}"),
                to: action.peerId, by: user)
        case .read:
            let marker = try ChatRoomApplication.decode(ChatSeqRequest.self, body, shape: "{seq}")
            _ = try await chat.markDirectRead(with: action.peerId, upTo: marker.seq, by: user)
        case .edit:
            let edit = try ChatRoomApplication.decode(ChatEditRequest.self, body, shape: "{seq, text}")
            try await chat.editDirect(edit.seq, with: action.peerId, text: edit.text, by: user)
        case .delete:
            let target = try ChatRoomApplication.decode(ChatSeqRequest.self, body, shape: "{seq}")
            try await chat.deleteDirect(target.seq, with: action.peerId, by: user)
        case .typing:
            let request = try ChatRoomApplication.decode(TypingRequest.self, body, shape: "{typing}")
            try await chat.requireDirectPeer(action.peerId, of: user)
            typing.receive(typing: request.typing, from: user, to: .direct(action.peerId), broker: broker, on: eventLoop)
        }
    }

    /// The user's inbox after `since-seq`, then live.
    func catchUp(headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
        guard let text = headers["since-seq"] else { return nil }
        guard let since = Int64(text), since >= 0 else {
            throw StompRefusal(code: "request.invalidFields", message: "since-seq: field.invalid")
        }
        return StompCatchUp(positionHeader: "inbox-seq", after: since) { [chat, linkBase] after in
            let missed = try await chat.directInbox(of: principal.userId, after: after, limit: ChatRoomApplication.catchUpPage)
            try ChatRoomApplication.refuse(since: since, firstPageIsEmpty: missed.isEmpty && after == since) {
                try chat.lastInboxPosition(of: principal.userId)
            }
            return try missed.map { entry in
                StompCatchUp.Message(
                    headers: Self.headers(of: entry.message, position: entry.position),
                    body: try ChatMessageBody(entry.message, linkBase: linkBase).json(), position: entry.position)
            }
        }
    }

    /// Delivers a committed direct message to every session of its two members.
    static func deliver(_ message: ChatMessage, on broker: StompBroker, linkBase: String) {
        guard let body = try? ChatMessageBody(message, linkBase: linkBase).json() else { return }
        for (userId, position) in message.inboxPositions {
            broker.send(toUser: userId, destination: queue, headers: headers(of: message, position: position), body: body)
        }
    }

    static func headers(of message: ChatMessage, position: Int64) -> StompHeaders {
        ["content-type": "application/json", "seq": String(message.seq), "inbox-seq": String(position)]
    }
}
