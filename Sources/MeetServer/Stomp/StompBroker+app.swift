import Logging
import MeetCore
import Stomp

/// The app's STOMP broker: sessions authenticate with REST bearer tokens; destinations are
/// opened by ``StompAuthorizerRules`` (and the sandbox, when configured).
func makeStompBroker(_ configuration: ServerConfiguration, services: AppServices, logger: Logger) -> StompBroker {
    var stompLogger = logger
    stompLogger[metadataKey: "subsystem"] = "stomp"
    return StompBroker(
        authenticator: StompAccountAuthenticator(accounts: services.accounts),
        authorizer: StompAuthorizerRules(sandbox: configuration.stompSandbox, accounts: services.accounts, database: services.database),
        logger: stompLogger)
}
