import NIOCore
import Testing
@testable import Stomp

/// A SEND the authorizer grants at once goes on without asking `authorize`; any other SEND
/// still asks it, and its refusal stands.
@Suite(.timeLimit(.minutes(1))) struct StompGrantsAtOnceTests {
    /// Grants `/app/echo` at once; `authorize` refuses everything, so a SEND that reached the
    /// application must have been granted at once.
    struct EchoAtOnce: StompAuthorizer {
        func grantsAtOnce(_ access: StompAccess, destination: String, principal: StompPrincipal) -> Bool {
            access == .send && destination == "/app/echo"
        }

        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            if access == .subscribe { return eventLoop.makeSucceededVoidFuture() }
            return eventLoop.makeFailedFuture(StompRefusal(code: "destination.forbidden", message: "asked"))
        }
    }

    @Test func aSendGrantedAtOnceSkipsAuthorizeAndOthersStillAsk() async throws {
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: EchoAtOnce(), application: TestApplication())
        let server = try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker)
        let client = try await StompClient.connect(host: "127.0.0.1", port: server.localAddress!.port!,
                                                   headers: ["accept-version": "1.2", "passcode": "token-alice"],
                                                   timeout: BrokerFixture.patience)
        try await client.subscribe("/topic/echo", id: "echo")
        try await client.subscribe("/user/queue/errors", id: "errors")
        let before = try await client.sendAwaitingReceipt(StompFrame(.send, headers: ["destination": "/app/echo"], text: "hi"))
        #expect(before.map(\.text) == ["hi"])
        try await client.send(StompFrame(.send, headers: ["destination": "/app/reply", "receipt": "2"], text: "x"))
        let refusal = try #require(try await client.next())
        #expect(refusal.headers["code"] == "destination.forbidden")
        #expect(refusal.headers["receipt-id"] == "2")
        try? await server.close()
    }
}
