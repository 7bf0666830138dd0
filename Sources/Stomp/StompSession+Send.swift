import NIOCore

extension StompSession {
    /// SEND: held by its transaction if it names one, otherwise routed by destination prefix.
    func send(_ frame: StompFrame, principal: StompPrincipal) throws -> EventLoopFuture<Void>? {
        let destination = try frame.required("destination")
        if let transaction = frame.headers["transaction"] {
            try hold(frame, in: transaction)
            return nil
        }
        if destination.hasPrefix("/topic/") {
            // A SEND to recipients that are behind completes only when they have caught up: the
            // session handles nothing more meanwhile (``StompPublisherFlow``).
            return authorizedSend(to: destination, principal: principal) {
                let recipients = self.broker.fanOut(to: destination, headers: frame.headers, body: frame.body)
                return StompPublisherFlow.pause(for: recipients, on: self.eventLoop, broker: self.broker)
                    ?? self.eventLoop.makeSucceededVoidFuture()
            }
        }
        if destination.hasPrefix("/app/"), let application = broker.application {
            let message = StompApplicationMessage(destination: String(destination.dropFirst(4)), headers: frame.headers,
                                                  body: frame.body, principal: principal,
                                                  session: StompSessionReference(session: self))
            let broker = broker
            return authorizedSend(to: destination, principal: principal) {
                application.receive(message, broker: broker, on: self.eventLoop)
            }
        }
        throw StompRefusal(code: "destination.unknown", message: "cannot send to \(destination)")
    }

    /// `deliver`'s outcome once the SEND to `destination` is authorized: at once when the
    /// authorizer already knows, else after its answer.
    private func authorizedSend(to destination: String, principal: StompPrincipal,
                                _ deliver: @escaping @Sendable () -> EventLoopFuture<Void>) -> EventLoopFuture<Void> {
        let authorizer = broker.authorizer
        if authorizer.grantsAtOnce(.send, destination: destination, principal: principal) { return deliver() }
        return authorizer.authorize(.send, destination: destination, principal: principal, on: eventLoop).flatMap(deliver)
    }

    /// BEGIN, COMMIT and ABORT. A commit replays the held SENDs and ACK/NACKs in order.
    func transaction(_ frame: StompFrame, version: StompVersion, principal: StompPrincipal) throws -> EventLoopFuture<Void>? {
        let name = try frame.required("transaction")
        switch frame.command {
        case .begin:
            guard transactions[name] == nil else { throw StompProtocolError.duplicateTransaction(name) }
            transactions[name] = []
            return nil
        case .abort:
            guard transactions.removeValue(forKey: name) != nil else { throw StompProtocolError.unknownTransaction(name) }
            return nil
        default:
            guard let frames = transactions.removeValue(forKey: name) else { throw StompProtocolError.unknownTransaction(name) }
            return try replay(frames[...], version: version, principal: principal)
        }
    }

    func hold(_ frame: StompFrame, in transaction: String) throws {
        guard var frames = transactions[transaction] else { throw StompProtocolError.unknownTransaction(transaction) }
        guard frames.count < broker.configuration.maxTransactionFrames else {
            throw StompProtocolError.transactionTooLarge(limit: broker.configuration.maxTransactionFrames)
        }
        var frame = frame
        frame.headers.set("transaction", nil)
        frame.headers.set("receipt", nil)
        frames.append(frame)
        transactions[transaction] = frames
    }

    private func replay(_ frames: ArraySlice<StompFrame>, version: StompVersion,
                        principal: StompPrincipal) throws -> EventLoopFuture<Void>? {
        for (offset, frame) in zip(frames.indices, frames) {
            guard let pending = try perform(frame, version: version, principal: principal) else { continue }
            let rest = frames[(offset + 1)...]
            return pending.hop(to: eventLoop).flatMap {
                do {
                    return try self.replay(rest, version: version, principal: principal) ?? self.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return self.eventLoop.makeFailedFuture(error)
                }
            }
        }
        return nil
    }

    /// Reports an application refusal on the session's `/user/queue/errors` subscription and
    /// keeps the session; without such a subscription, or for a refusal that ends the session,
    /// answers ERROR and closes. The body names the frame's destination and, for a refused
    /// SUBSCRIBE or a subscription the server ended, its id.
    func refuse(_ refusal: StompRefusal, destination: String?, receiptId: String?, subscriptionId: String? = nil) {
        let errorsQueue = "/user/queue/errors"
        guard !refusal.endsSession, subscriptions.values.contains(where: { $0.destination == errorsQueue }) else {
            fail(refusal, receiptId: receiptId)
            return
        }
        var headers: StompHeaders = ["content-type": "application/json", "code": refusal.code]
        if let receiptId { headers.add("receipt-id", receiptId) }
        var body = allocator.buffer(capacity: 64 + refusal.message.utf8.count)
        body.writeString("{\"code\":\(JSONText.quoted(refusal.code)),\"message\":\(JSONText.quoted(refusal.message))")
        if let destination { body.writeString(",\"destination\":\(JSONText.quoted(destination))") }
        if let subscriptionId { body.writeString(",\"subscription\":\(JSONText.quoted(subscriptionId))") }
        body.writeString("}")
        deliverToOwnSubscriptions(broker.makeMessage(destination: errorsQueue, headers: headers, body: body))
    }
}
