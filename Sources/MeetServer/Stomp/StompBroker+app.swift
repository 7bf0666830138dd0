import Logging
import MeetCore
import Stomp

/// The app's STOMP broker: sessions authenticate with REST bearer tokens; destinations are
/// opened by ``StompAuthorizerRules`` (and the sandbox, when configured).
func makeStompBroker(_ configuration: ServerConfiguration, services: AppServices, logger: Logger) -> StompBroker {
    var stompLogger = logger
    stompLogger[metadataKey: "subsystem"] = "stomp"
    let broker = StompBroker(
        authenticator: StompAccountAuthenticator(accounts: services.accounts),
        authorizer: StompAuthorizerRules(sandbox: configuration.stompSandbox, accounts: services.accounts, database: services.database),
        application: ChatRoomApplication(chat: services.chat, linkBase: configuration.linkBase),
        logger: stompLogger)
    let linkBase = configuration.linkBase
    services.chat.onCommitted { [weak broker] messages in
        guard let broker else { return }
        ChatRoomApplication.broadcast(messages, on: broker, linkBase: linkBase)
    }
    return broker
}
