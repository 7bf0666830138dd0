import NIOCore

/// A SEND to `/app/...`, handed to the injected ``StompApplication``.
public struct StompApplicationMessage: Sendable {
    /// The destination after the `/app` prefix, e.g. `/meetings.42.chat`.
    public var destination: String
    /// The SEND frame's headers.
    public var headers: StompHeaders
    /// The SEND frame's body.
    public var body: ByteBuffer
    /// The sender.
    public var principal: StompPrincipal
    /// The sender's session, to reply to it alone.
    public var session: StompSessionReference
}

/// Handles `/app/...` destinations. Complete the future once the message is dealt with (e.g.
/// durably stored): the sender's RECEIPT waits for it. Fail it with ``StompRefusal`` to refuse.
public protocol StompApplication: Sendable {
    /// Handles one SEND; use `broker` to broadcast or to reach users.
    func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void>

    /// What an authorized SUBSCRIBE must catch up on before it goes live (its headers say from
    /// where, e.g. `since-seq`), or `nil` for none. Throw ``StompRefusal`` to refuse it.
    func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp?
}

extension StompApplication {
    /// No catch-up: every subscription starts live.
    public func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
        nil
    }
}

/// A handle on one session that any thread may keep: it delivers to that session's own
/// subscriptions, on the session's event loop.
public struct StompSessionReference: Sendable {
    let session: StompSession

    /// The broker-assigned session id (the CONNECTED frame's `session` header).
    public var id: String { session.id }

    /// Delivers a MESSAGE to this session's subscriptions on `destination` (e.g. `/user/queue/errors`).
    public func send(to destination: String, headers: StompHeaders = [:], body: ByteBuffer) {
        let message = session.broker.makeMessage(destination: destination, headers: headers, body: body)
        session.eventLoop.execute {
            session.deliverToOwnSubscriptions(message)
        }
    }
}
