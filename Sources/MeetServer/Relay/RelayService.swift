import Foundation
import Logging
import MeetCore
import ServiceLifecycle
import Stomp

/// The relay's part in the server's life (`--relay`): keeps the connection to the relay broker
/// and delivers the rooms' messages for as long as the server runs.
struct RelayService: Service {
    let link: RelayLink
    let chat: ChatRelay

    /// Connects `broker` and `chat` to the relay at `endpoint`; from here on the chat's
    /// committed messages go out through the relay (``ChatRelay``).
    init(endpoint: RelayEndpoint, chat: ChatService, broker: StompBroker, linkBase: String, logger: Logger) {
        var logger = logger
        logger[metadataKey: "subsystem"] = "relay"
        let node = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
        link = RelayLink(endpoint: endpoint, logger: logger)
        self.chat = ChatRelay(chat: chat, broker: broker, link: link, linkBase: linkBase, node: node, logger: logger)
        self.chat.install()
    }

    func run() async throws {
        let (link, chat) = (link, chat)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await link.run(chat.handlers) }
            group.addTask { await chat.run() }
            group.addTask { await chat.sweep() }
            try? await gracefulShutdown()
            chat.stop()
            group.cancelAll()
        }
    }
}
