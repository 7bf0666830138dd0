import NIOCore
import NIOPosix
@testable import Stomp

/// Accepts `passcode` or `Authorization: Bearer` tokens of the form `token-<user>`.
struct TokenAuthenticator: StompAuthenticator {
    func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal> {
        guard let token = credentials.bearerToken, token.hasPrefix("token-") else {
            return eventLoop.makeFailedFuture(StompRefusal(code: "auth.invalidToken", message: "bad token", endsSession: true))
        }
        return eventLoop.makeSucceededFuture(StompPrincipal(userId: String(token.dropFirst(6))))
    }
}

/// Refuses any destination containing `forbidden`, asynchronously, as a database check would.
struct ForbiddenWordAuthorizer: StompAuthorizer {
    func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                   on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask {
            if destination.contains("forbidden") {
                throw StompRefusal(code: "destination.forbidden", message: "\(destination) is forbidden")
            }
        }
    }
}

/// `/app/echo` broadcasts to `/topic/echo`, `/app/reply` answers the sender on
/// `/user/queue/replies`, `/app/refuse` refuses.
struct TestApplication: StompApplication {
    func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        switch message.destination {
        case "/echo":
            broker.publish(to: "/topic/echo", headers: ["from": message.principal.userId], body: message.body)
        case "/reply":
            message.session.send(to: "/user/queue/replies", body: message.body)
        default:
            return eventLoop.makeFailedFuture(StompRefusal(code: "refused", message: "no such thing"))
        }
        return eventLoop.makeSucceededVoidFuture()
    }
}

/// A broker listening on a free loopback port, for one test.
struct BrokerFixture {
    let broker: StompBroker
    let server: any Channel
    var port: Int { server.localAddress!.port! }
    /// How long a test waits for the broker's answer before it fails: far beyond what a loaded
    /// CI machine needs, far below the watchdog that would otherwise kill the whole run.
    static let patience = Duration.seconds(30)

    static func start(_ configure: (inout StompBroker.Configuration) -> Void = { _ in }) async throws -> BrokerFixture {
        var configuration = StompBroker.Configuration()
        configure(&configuration)
        let broker = StompBroker(configuration: configuration, authenticator: TokenAuthenticator(),
                                 authorizer: ForbiddenWordAuthorizer(), application: TestApplication())
        let server = try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker)
        return BrokerFixture(broker: broker, server: server)
    }

    func client(_ user: String = "alice", version: String = "1.2", extra: StompHeaders = [:]) async throws -> StompClient {
        var headers: StompHeaders = ["accept-version": version, "host": "localhost", "passcode": "token-\(user)"]
        for (name, value) in extra.pairs { headers.add(name, value) }
        return try await StompClient.connect(host: "127.0.0.1", port: port, headers: headers, timeout: Self.patience)
    }

    func stop() async {
        try? await server.close()
    }
}

extension StompClient {
    /// Sends `frame` with a receipt and returns the frames that arrived before the RECEIPT.
    @discardableResult
    func sendAwaitingReceipt(_ frame: StompFrame, receipt: String = "r") async throws -> [StompFrame] {
        var frame = frame
        frame.headers.add("receipt", receipt)
        try await send(frame)
        var before: [StompFrame] = []
        while let next = try await next() {
            if next.command == .receipt, next.headers["receipt-id"] == receipt { return before }
            if next.command == .error { throw StompClient.ConnectError.refused(next) }
            before.append(next)
        }
        throw StompClient.ConnectError.closed
    }

    func subscribe(_ destination: String, id: String = "sub-0", ack: String = "auto") async throws {
        try await sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": id, "destination": destination, "ack": ack]),
                                      receipt: "sub-\(id)")
    }
}
