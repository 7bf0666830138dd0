import Logging
import MeetCore
import NIOCore
import NIOPosix
import Stomp

/// The app's STOMP broker: sessions authenticate with REST bearer tokens; destinations are
/// opened by ``StompAuthorizerRules`` (and the sandbox, when configured). A sign-in that ends
/// (``LiveSessions``) closes its sessions at once.
func makeStompBroker(_ configuration: ServerConfiguration, services: AppServices, live: LiveRelay, logger: Logger) -> StompBroker {
    var stompLogger = logger
    stompLogger[metadataKey: "subsystem"] = "stomp"
    var brokerConfiguration = StompBroker.Configuration()
    brokerConfiguration.connectTimeout = TimeAmount(configuration.stompConnectTimeout)
    brokerConfiguration.maxUnauthenticatedSessions = configuration.maxUnauthenticatedStompSessions
    brokerConfiguration.userTopics = [PresenceTracker.topic]
    let onTheWay = OnTheWayTracker(
        policy: configuration.locationSharing, eventLoop: MultiThreadedEventLoopGroup.singleton.next(), now: configuration.now)
    let broker = StompBroker(
        configuration: brokerConfiguration,
        authenticator: StompAccountAuthenticator(accounts: services.accounts),
        authorizer: StompAuthorizerRules(sandbox: configuration.stompSandbox, accounts: services.accounts, database: services.database,
                                         grants: services.roomGrants),
        application: ChatRoomApplication(chat: services.chat, linkBase: configuration.linkBase, typing: TypingRelay(live: live),
                                         presence: services.presence,
                                         onTheWay: OnTheWayRouting(tracker: onTheWay, database: services.database)),
        logger: stompLogger)
    services.accounts.liveSessions.onEnd { [weak broker] ending in
        // Signed out everywhere (a ban, a password reset): off the map at once, not after the grace.
        if ending.tokenHash == nil { onTheWay.stopAll(of: ending.userId) }
        broker?.endSessions(ofUser: ending.userId, where: { principal in
            ending.tokenHash == nil || principal.credential.map(RandomToken.hash) == ending.tokenHash
        }, refusal: StompAuthorizerRules.sessionEnded(because: ending.reason))
    }
    let linkBase = configuration.linkBase
    // With a relay, the relay delivers the rooms' messages instead (RelayService).
    if configuration.relay == nil {
        services.chat.onCommitted { [weak broker] messages in
            guard let broker else { return }
            ChatRoomApplication.broadcast(messages, on: broker, linkBase: linkBase)
        }
    }
    let endHere: @Sendable ([ChatDeparture]) -> Void = { [weak broker] departures in
        guard let broker else { return }
        ChatRevocation.endSubscriptions(of: departures, on: broker)
        for departure in departures { onTheWay.depart(departure.userId, from: departure.meetingId) }
    }
    services.chat.onDeparted { departures in
        endHere(departures)
        live.announce(departures)
    }
    live.onDeparture(endHere)
    ChatDepartureCheck.follow(services.changes, broker: broker, database: services.database, logger: stompLogger, depart: endHere)
    services.presence.attach(to: broker)
    onTheWay.attach(to: broker, live: live)
    live.onLocation { meetingId, body in
        if let change = try? OnTheWayBody(json: body) { onTheWay.mirror(change, in: meetingId) }
    }
    return broker
}
