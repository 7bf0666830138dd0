import NIOCore
import Stomp

/// Who may use which broker destination. Every user may listen to their own `/user/queue/...`
/// (the broker keys those per user). With `--stomp-sandbox`, any authenticated session may
/// SUBSCRIBE and SEND on `/topic/sandbox.*` like a stock broker's topic, so the protocol can be
/// checked apart from the app's rules. Everything else is refused until a feature allows it.
struct StompAuthorizerRules: StompAuthorizer {
    let sandbox: Bool

    func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                   on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        if access == .subscribe, destination.hasPrefix("/user/queue/") {
            return eventLoop.makeSucceededVoidFuture()
        }
        if sandbox, destination.hasPrefix("/topic/sandbox."), destination.count > "/topic/sandbox.".count {
            return eventLoop.makeSucceededVoidFuture()
        }
        return eventLoop.makeFailedFuture(StompRefusal(code: "forbidden", message: "\(destination) is not open to this session"))
    }
}
