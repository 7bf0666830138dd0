import Foundation
import Logging
import MeetCore
import ServiceLifecycle
import Stomp

/// The relay's part in the server's life (`--relay`): keeps the connection to the relay broker
/// and delivers the rooms' messages and live events for as long as the server runs.
struct RelayService: Service {
    let link: RelayLink
    let chat: ChatRelay
    let live: LiveRelay
    let broker: StompBroker

    /// Connects `broker` and `chat` to the relay through `link`; from here on the chat's
    /// committed messages go out through the relay (``ChatRelay``), and the broker's
    /// subscribers decide what the node follows there.
    init(link: RelayLink, live: LiveRelay, chat: ChatService, broker: StompBroker, linkBase: String, logger: Logger) {
        self.link = link
        self.live = live
        self.broker = broker
        self.chat = ChatRelay(chat: chat, broker: broker, link: link, linkBase: linkBase, node: live.node, logger: logger)
        self.chat.install()
        broker.onInterest { [chat = self.chat] interest in
            chat.interestChanged(interest)
            live.interestChanged(interest)
        }
    }

    func run() async throws {
        let (link, chat, live) = (link, chat, live)
        let handlers = RelayLink.Handlers.all([chat.handlers, live.handlers(broker: broker)])
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await link.run(handlers) }
            group.addTask { await chat.run() }
            group.addTask { await chat.sweep() }
            group.addTask { await live.refreshPresence() }
            try? await gracefulShutdown()
            chat.stop()
            group.cancelAll()
        }
    }
}
