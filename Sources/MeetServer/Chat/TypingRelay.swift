import Foundation
import NIOCore
import Stomp
import Synchronization

/// Typing indicators: relayed to the room (or the other member of a direct conversation), never
/// stored. Each sender is throttled per room: at most one relayed `typing: true` per
/// ``interval``; a `typing: false` goes out at once if a start was relayed; and when a sender
/// stops sending for ``silence`` after a relayed start, the relay sends the stop itself, so a
/// client that vanished mid-sentence does not leave "typing…" on the others' screens.
final class TypingRelay: Sendable {
    /// Where one sender's typing goes.
    enum Target: Hashable, Sendable {
        /// `/topic/meetings.{id}.typing`, every subscribed member.
        case meeting(String)
        /// `/user/queue/typing` of the other member of a direct conversation.
        case direct(String)
    }

    /// What a sender's client last made us relay in one room.
    private struct State {
        var lastRelayed: NIODeadline
        var typing: Bool
        var stop: Scheduled<Void>?
    }

    static let userQueue = "/user/queue/typing"
    let interval: TimeAmount
    let silence: TimeAmount
    /// Where relayed indicators go: this node's sessions, and the other nodes' through the relay.
    let live: LiveRelay
    private let states = Mutex<[String: State]>([:])

    init(live: LiveRelay, interval: TimeAmount = .seconds(1), silence: TimeAmount = .seconds(5)) {
        self.live = live
        self.interval = interval
        self.silence = silence
    }

    /// Handles one typing SEND from `userId` to `target`: relays it unless throttled.
    func receive(typing: Bool, from userId: String, to target: Target, broker: StompBroker, on eventLoop: any EventLoop) {
        let key = "\(userId)\u{0}\(target)"
        let now = NIODeadline.now()
        let relays = states.withLock { states -> Bool in
            var state = states[key] ?? State(lastRelayed: now - interval, typing: false)
            state.stop?.cancel()
            state.stop = nil
            defer { states[key] = state.typing || state.stop != nil ? state : nil }
            if typing {
                state.stop = eventLoop.scheduleTask(in: silence) { [weak self] in
                    self?.timedOut(key, userId: userId, target: target, broker: broker)
                }
                guard !state.typing || now - state.lastRelayed >= interval else { return false }
                state.lastRelayed = now
                state.typing = true
                return true
            }
            guard state.typing else { return false }
            state.typing = false
            return true
        }
        if relays { relay(typing: typing, from: userId, to: target, broker: broker) }
    }

    /// The sender went silent while typing: tell the others they stopped.
    private func timedOut(_ key: String, userId: String, target: Target, broker: StompBroker) {
        let wasTyping = states.withLock { states in states.removeValue(forKey: key)?.typing ?? false }
        if wasTyping { relay(typing: false, from: userId, to: target, broker: broker) }
    }

    private func relay(typing: Bool, from userId: String, to target: Target, broker: StompBroker) {
        let headers: StompHeaders = ["content-type": "application/json"]
        switch target {
        case .meeting(let meetingId):
            let body = TypingBody(userId: userId, meetingId: meetingId, typing: typing)
            guard let bytes = try? body.json() else { return }
            live.publish(to: MeetingTopic(meetingId: meetingId, room: .typing).destination, headers: headers, body: bytes, on: broker)
        case .direct(let peerId):
            let body = TypingBody(userId: userId, meetingId: nil, typing: typing)
            guard let bytes = try? body.json() else { return }
            live.sendTyping(toUser: peerId, headers: headers, body: bytes, on: broker)
        }
    }
}

/// `{typing: true|false}`: what a client sends to `/app/meetings.{id}.typing` or
/// `/app/direct.{userId}.typing`.
struct TypingRequest: Decodable, Sendable {
    var typing: Bool
}

/// `{userId, meetingId, typing}`: what the others get (`meetingId` null in a direct conversation).
struct TypingBody: Encodable, Sendable {
    var userId: String
    var meetingId: String?
    var typing: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(meetingId, forKey: .meetingId)
        try container.encode(typing, forKey: .typing)
    }

    private enum CodingKeys: String, CodingKey {
        case userId, meetingId, typing
    }

    func json() throws -> ByteBuffer {
        ByteBuffer(data: try JSONEncoder().encode(self))
    }
}
