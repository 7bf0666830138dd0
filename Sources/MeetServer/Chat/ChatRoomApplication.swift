import Foundation
import MeetCore
import NIOCore
import Stomp

/// The app's `/app/...` destinations on the broker: `/app/direct.{userId}...` are direct
/// messages (``DirectApplication``); `.typing` of either is relayed, never stored
/// (``TypingRelay``); `/app/meetings.{id}.chat` posts to the meeting's room, `/app/meetings.{id}.read` moves the sender's read marker, `.edit` and
/// `.delete` change an earlier message (stored as events with their own seq); `.location` is a
/// member on the way (``OnTheWayRouting``, in memory only). The broker sends
/// the sender's RECEIPT when the returned future completes, which ``ChatService`` does only
/// once the message (or marker) is committed; the broadcast to
/// `/topic/meetings.{id}.chat` goes out from the commit itself (``broadcast(_:on:linkBase:)``).
struct ChatRoomApplication: StompApplication {
    let chat: ChatService
    let linkBase: String
    let typing: TypingRelay
    let presence: PresenceTracker
    let onTheWay: OnTheWayRouting
    /// How many missed messages one catch-up page reads.
    static let catchUpPage = 100

    var direct: DirectApplication { DirectApplication(chat: chat, linkBase: linkBase, typing: typing) }

    func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let user = message.principal.userId
        let action = ChatAction(appDestination: message.destination)
        if let action, action.kind == .chat { return post(message.body, to: action.meetingId, by: user, on: eventLoop) }
        let body = Data(message.body.readableBytesView)
        if message.destination == "/presence" {
            return eventLoop.submit { [presence] in
                let request = try Self.decode(PresenceRequest.self, body, shape: "{status: online|away}")
                presence.set(request.status, session: message.session.id, of: user)
            }
        }
        if let action = DirectAction(appDestination: message.destination) {
            return eventLoop.makeFutureWithTask { [direct] in
                do {
                    try await direct.receive(action, body: body, from: user, broker: broker, on: eventLoop)
                } catch let error as MeetError {
                    throw StompRefusal(error)
                }
            }
        }
        guard let action else {
            return eventLoop.makeFailedFuture(StompRefusal(code: "destination.unknown", message: "cannot send to /app\(message.destination)"))
        }
        return eventLoop.makeFutureWithTask { [chat, typing, onTheWay] in
            do {
                switch action.kind {
                case .chat:
                    break  // posted above, without a task
                case .read:
                    let marker = try Self.decode(ChatSeqRequest.self, body, shape: "{seq}")
                    _ = try await chat.markRead(action.meetingId, upTo: marker.seq, by: user)
                case .edit:
                    let edit = try Self.decode(ChatEditRequest.self, body, shape: "{seq, text}")
                    try await chat.edit(edit.seq, in: action.meetingId, text: edit.text, by: user)
                case .delete:
                    let target = try Self.decode(ChatSeqRequest.self, body, shape: "{seq}")
                    try await chat.delete(target.seq, in: action.meetingId, by: user)
                case .typing:
                    // Membership was checked by the authorizer, like any SEND to the room.
                    let request = try Self.decode(TypingRequest.self, body, shape: "{typing}")
                    typing.receive(typing: request.typing, from: user, to: .meeting(action.meetingId), broker: broker, on: eventLoop)
                case .location:
                    // Membership was checked by the authorizer, as for typing.
                    try await onTheWay.receive(body, from: user, session: message.session.id, in: action.meetingId)
                }
            } catch let error as MeetError {
                throw StompRefusal(error)
            }
        }
    }

    /// A post to a meeting's room, decoded on the event loop and answered from the commit
    /// (``ChatService/post(_:to:by:answer:)``): a SEND within the rate limit hops only to the
    /// database writer and back, and a refusal keeps its code. A body written the plain way is
    /// read without `JSONDecoder` (``ChatDraftJSON``), any other as before.
    private func post(_ body: ByteBuffer, to meetingId: String, by user: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        do {
            let draft = try ChatDraftJSON.draft(from: body)
                ?? Self.decode(ChatDraft.self, Data(body.readableBytesView), shape: "{text, clientMessageId, attachments?, replyToSeq?}")
            chat.post(draft, to: meetingId, by: user) { posted in
                promise.completeWith(posted.map { _ in }.mapError(Self.refusal))
            }
        } catch {
            promise.fail(Self.refusal(error))
        }
        return promise.futureResult
    }

    /// A domain refusal as the STOMP refusal with its code; any other error as it is.
    private static func refusal(_ error: any Error) -> any Error {
        (error as? MeetError).map(StompRefusal.init) ?? error
    }

    /// A SEND's JSON body, or a refusal saying what it should look like.
    static func decode<Body: Decodable>(_ type: Body.Type, _ data: Data, shape: String) throws -> Body {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw StompRefusal(code: "request.invalidFields", message: "the body must be JSON \(shape)")
        }
    }

    /// `SUBSCRIBE /topic/meetings.{id}.chat` with `since-seq:N` first gets every stored message
    /// with a seq above N, in order, then the live ones, with no gap and no repeat.
    /// `SUBSCRIBE /user/queue/direct` with `since-seq:N` catches up on the user's direct inbox
    /// (``DirectApplication``).
    func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
        if destination == DirectApplication.queue { return try direct.catchUp(headers: headers, principal: principal) }
        if destination == PresenceTracker.topic { return presence.snapshot(for: principal.userId) }
        if let positions = onTheWay.catchUp(destination: destination) { return positions }
        guard let text = headers["since-seq"], let room = MeetingTopic(destination: destination), room.room == .chat else {
            return nil
        }
        guard let since = Int64(text), since >= 0 else {
            throw StompRefusal(code: "request.invalidFields", message: "since-seq: field.invalid")
        }
        return StompCatchUp(positionHeader: "seq", after: since) { [chat, linkBase] after in
            let missed = try await chat.messages(of: room.meetingId, after: after, limit: Self.catchUpPage)
            try Self.refuse(since: since, firstPageIsEmpty: missed.isEmpty && after == since) {
                try chat.lastSeq(of: room.meetingId)
            }
            return try missed.map { message in
                StompCatchUp.Message(
                    headers: Self.headers(of: message), body: try ChatMessageBody(message, linkBase: linkBase).json(),
                    position: message.seq)
            }
        }
    }

    /// Refuses a `since-seq` beyond the last position stored (`last`, asked only when the
    /// catch-up's first page is empty, a short read on the calling thread as a relay makes):
    /// the live messages up to it would be dropped unseen. A client whose position came from
    /// elsewhere (a phone restored from a backup) learns to start over.
    static func refuse(since: Int64, firstPageIsEmpty: Bool, last: () throws -> Int64) throws {
        guard firstPageIsEmpty, since > 0 else { return }
        let last = try last()
        guard since > last else { return }
        throw StompRefusal(code: "request.invalidFields", message: "since-seq: field.outOfRange (the last is \(last))")
    }

    /// Publishes committed messages to their rooms' topics (direct messages to their two
    /// members' queues), in the order given (commit order).
    static func broadcast(_ messages: [ChatMessage], on broker: StompBroker, linkBase: String) {
        // A batch's messages mostly share a room: its topic is written once for them.
        var topic: (meetingId: String, destination: String)?
        for message in messages {
            guard let meetingId = message.meetingId else {
                DirectApplication.deliver(message, on: broker, linkBase: linkBase)
                continue
            }
            let destination: String
            if let topic, topic.meetingId == meetingId {
                destination = topic.destination
            } else {
                destination = MeetingTopic(meetingId: meetingId, room: .chat).destination
                topic = (meetingId, destination)
            }
            try? broker.publish(to: destination) { (headers(of: message), try ChatMessageBody(message, linkBase: linkBase).json()) }
        }
    }

    static func headers(of message: ChatMessage) -> StompHeaders {
        ["content-type": "application/json", "seq": String(message.seq)]
    }
}

extension StompRefusal {
    /// A domain refusal on the broker, with the REST problem's code; field problems are named
    /// in the message (`text: chatMessage.tooLong`).
    init(_ error: MeetError) {
        let fields = error.fieldProblems.map { "\($0.field): \($0.code)" }.joined(separator: ", ")
        let retry = error.arguments["retryAfter"].map { "retry after \($0) s" }
        self.init(code: error.code, message: [fields.isEmpty ? nil : fields, retry].compactMap { $0 }.joined(separator: "; ").nonEmpty ?? error.code)
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
