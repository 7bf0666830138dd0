import NIOCore
import Synchronization
import Testing
@testable import Stomp

/// A SUBSCRIBE whose access is taken away while it is being authorized: the application's
/// ending of that access finds no subscription yet, so the broker asks the authorizer again once
/// the subscription is registered (``StompAuthorizer/confirm(subscriptionTo:principal:on:)``).
/// The race is driven step by step, not by timing: the test holds the first answer back, takes
/// the access away and ends the (not yet existing) subscriptions, then lets the answer through.
@Suite(.timeLimit(.minutes(1))) struct StompSubscriptionConfirmTests {
    static let gone = StompRefusal(code: "room.left", message: "you left the room")

    /// Grants `/topic/room` to members; holds each SUBSCRIBE's first answer until the test opens
    /// it; confirms against the members as they are then.
    final class HeldAuthorizer: StompAuthorizer {
        private struct State {
            var members: Set<String> = ["alice"]
            var held: [EventLoopPromise<Void>] = []
        }

        private let state = Mutex(State())

        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            guard destination == "/topic/room" else { return eventLoop.makeSucceededVoidFuture() }
            let promise = eventLoop.makePromise(of: Void.self)
            let member = state.withLock { state in
                state.held.append(promise)
                return state.members.contains(principal.userId)
            }
            return promise.futureResult.flatMapThrowing { if !member { throw gone } }
        }

        func confirm(subscriptionTo destination: String, principal: StompPrincipal,
                     on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
            guard destination == "/topic/room" else { return nil }
            let member = state.withLock { $0.members.contains(principal.userId) }
            return member ? eventLoop.makeSucceededVoidFuture() : eventLoop.makeFailedFuture(gone)
        }

        func remove(_ user: String) {
            state.withLock { _ = $0.members.remove(user) }
        }

        /// The first answer held back, once the broker has asked (waited for up to 10 s).
        func heldAnswer() async throws -> EventLoopPromise<Void> {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                if let promise = state.withLock({ $0.held.isEmpty ? nil : $0.held.removeFirst() }) { return promise }
                guard ContinuousClock.now < deadline else { throw StompClient.TimedOut(waited: .seconds(10)) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    static func start(_ authorizer: HeldAuthorizer) async throws -> (StompBroker, any Channel) {
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: authorizer, application: TestApplication())
        return (broker, try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker))
    }

    static func client(_ server: any Channel) async throws -> StompClient {
        let client = try await StompClient.connect(
            host: "127.0.0.1", port: server.localAddress!.port!, headers: ["accept-version": "1.2", "host": "localhost", "passcode": "token-alice"],
            timeout: BrokerFixture.patience)
        try await client.subscribe("/user/queue/errors", id: "errors")
        return client
    }

    @Test func aMemberWhoLeavesWhileSubscribingIsRefusedAndHearsNothing() async throws {
        let authorizer = HeldAuthorizer()
        let (broker, server) = try await Self.start(authorizer)
        let alice = try await Self.client(server)
        try await alice.send(StompFrame(.subscribe, headers: ["id": "room", "destination": "/topic/room", "receipt": "joined"]))
        // Alice was a member when asked; she leaves before the answer is through.
        let answerOnItsWay = try await authorizer.heldAnswer()
        authorizer.remove("alice")
        broker.endSubscriptions(ofUser: "alice", to: "/topic/room", refusal: Self.gone)
        answerOnItsWay.succeed()

        let answer = try #require(try await alice.next())
        #expect(answer.command == .message && answer.headers["code"] == "room.left" && answer.headers["receipt-id"] == "joined")
        broker.publish(to: "/topic/room", body: ByteBuffer(string: "after she left"))
        // Anything published before this round trip would have arrived before its RECEIPT.
        let before = try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "other", "destination": "/topic/other"]))
        #expect(before.isEmpty, "\(before.map(\.text))")
        await alice.close()
        try await server.close()
    }

    /// Confirmed, a subscription works as before: messages held while it was confirmed come out.
    @Test func aMemberWhoStaysIsConfirmedAndHearsTheRoom() async throws {
        let authorizer = HeldAuthorizer()
        let (broker, server) = try await Self.start(authorizer)
        let alice = try await Self.client(server)
        try await alice.send(StompFrame(.subscribe, headers: ["id": "room", "destination": "/topic/room", "receipt": "joined"]))
        try await authorizer.heldAnswer().succeed()
        #expect(try await alice.next()?.headers["receipt-id"] == "joined")
        broker.publish(to: "/topic/room", body: ByteBuffer(string: "hello"))
        #expect(try await alice.next()?.text == "hello")
        await alice.close()
        try await server.close()
    }
}
