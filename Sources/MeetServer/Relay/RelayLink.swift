import Logging
import NIOCore
import Stomp
import Synchronization

/// The node's one connection to the relay broker, over our own ``StompClient``: it keeps the
/// SUBSCRIBEs of the destinations this node follows, publishes what others must hear, and
/// reconnects with backoff whenever the broker goes away, subscribing again to everything
/// followed. While disconnected, publications are dropped (and at most ``backlog`` wait on a slow
/// connection): whoever
/// missed them reads them from the shared database after the reconnection.
final class RelayLink: Sendable {
    /// What the link hears from the relay.
    struct Handlers: Sendable {
        /// A MESSAGE on a followed destination.
        var message: @Sendable (_ destination: String, _ headers: StompHeaders, _ body: ByteBuffer) -> Void
        /// The broker confirmed a SUBSCRIBE (after every reconnection too): from now on nothing
        /// published to `destination` is missed, so whatever came before must be read elsewhere.
        var following: @Sendable (_ destination: String) -> Void

        /// Hands everything to each of `parts`, in order; each ignores what is not its own.
        static func all(_ parts: [Handlers]) -> Handlers {
            Handlers(
                message: { destination, headers, body in
                    for part in parts { part.message(destination, headers, body) }
                },
                following: { destination in
                    for part in parts { part.following(destination) }
                })
        }
    }

    private enum Command: Sendable {
        case publish(StompFrame)
        case follow(String)
        case unfollow(String)
    }

    /// The most commands waiting on a slow connection; older ones are dropped.
    static let backlog = 10_000

    /// What the node follows, and the outbox of the live connection (nil while there is none).
    private struct State {
        var followed = Set<String>()
        var outbox: AsyncStream<Command>.Continuation?
    }

    let endpoint: RelayEndpoint
    let logger: Logger
    private let state = Mutex(State())

    init(endpoint: RelayEndpoint, logger: Logger) {
        self.endpoint = endpoint
        self.logger = logger
    }

    /// Publishes to every node following `destination`; dropped while the broker is away.
    func publish(to destination: String, headers: StompHeaders, body: ByteBuffer) {
        var frame = StompFrame(.send, headers: headers, body: body)
        frame.headers.set("destination", destination)
        state.withLock { _ = $0.outbox?.yield(.publish(frame)) }
    }

    /// Starts following `destination` on the relay (kept across reconnections).
    func follow(_ destination: String) {
        state.withLock { state in
            state.followed.insert(destination)
            state.outbox?.yield(.follow(destination))
        }
    }

    /// Stops following `destination`.
    func unfollow(_ destination: String) {
        state.withLock { state in
            state.followed.remove(destination)
            state.outbox?.yield(.unfollow(destination))
        }
    }

    /// Connects and keeps connecting until cancelled; waits 0.1 s after a failure, doubling up
    /// to 5 s.
    func run(_ handlers: Handlers) async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let beat = endpoint.heartBeat.components.seconds * 1000
                let client = try await StompClient.connect(host: endpoint.host, port: endpoint.port, headers: [
                    "accept-version": "1.2", "host": endpoint.virtualHost, "login": endpoint.login,
                    "passcode": endpoint.passcode, "heart-beat": "\(beat),\(beat)",
                ], timeout: endpoint.heartBeat * 3)
                logger.info("relay connected", metadata: ["host": "\(endpoint.host):\(endpoint.port)"])
                backoff = .milliseconds(100)
                await serve(client, handlers)
                logger.warning("relay connection lost; local delivery goes on, reconnecting")
            } catch {
                logger.warning("relay unreachable", metadata: ["error": "\(error)", "retryIn": "\(backoff)"])
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
    }

    /// Runs one connection: reads, writes and beats until either side ends it.
    private func serve(_ client: StompClient, _ handlers: Handlers) async {
        // A fresh outbox per connection: the followed set read with it is what to subscribe
        // to first; whatever changes after comes through the outbox.
        let (commands, outbox) = AsyncStream.makeStream(of: Command.self, bufferingPolicy: .bufferingNewest(Self.backlog))
        let followed = state.withLock { state in
            state.outbox = outbox
            return state.followed
        }
        defer {
            state.withLock { $0.outbox = nil }
            outbox.finish()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.read(client, handlers) }
            group.addTask { try? await self.write(client, following: followed, commands: commands) }
            group.addTask {
                while (try? await Task.sleep(for: self.endpoint.heartBeat)) != nil {
                    guard (try? await client.send(bytes: ByteBuffer(string: "\n"))) != nil else { return }
                }
            }
            await group.next()
            group.cancelAll()
            await client.close()
        }
    }

    private func read(_ client: StompClient, _ handlers: Handlers) async {
        let silence = allowedSilence(client.connected)
        while true {
            let frame: StompFrame
            do {
                guard let next = try await client.next(allowingSilence: silence) else { return }
                frame = next
            } catch is StompClient.TimedOut {
                // A partition or a frozen broker: TCP says nothing for many minutes.
                logger.warning("relay silent for three heart-beats; reconnecting", metadata: ["silence": "\(silence ?? .zero)"])
                return
            } catch {
                return
            }
            switch frame.command {
            case .message:
                guard let destination = frame.headers["destination"] else { continue }
                handlers.message(destination, frame.headers, frame.body)
            case .receipt:
                guard let id = frame.headers["receipt-id"], id.hasPrefix("follow:") else { continue }
                handlers.following(String(id.dropFirst("follow:".count)))
            case .error:
                logger.error("relay refused", metadata: ["message": "\(frame.headers["message"] ?? "")"])
                return
            default:
                continue
            }
        }
    }

    /// Three of the broker's heart-beats as its CONNECTED promised them (every
    /// max(theirs, ours)), or nil when it promised none and silence proves nothing.
    private func allowedSilence(_ connected: StompFrame) -> Duration? {
        let promised = connected.headers["heart-beat"]?.split(separator: ",").first.flatMap { Int($0) } ?? 0
        guard promised > 0 else {
            logger.warning("the relay broker sends no heart-beats: a dead link is noticed only when TCP gives up")
            return nil
        }
        return max(.milliseconds(promised), endpoint.heartBeat) * 3
    }

    /// Subscribes to everything followed, then sends commands as they come; a SUBSCRIBE or
    /// UNSUBSCRIBE only when it changes what this connection listens to.
    private func write(_ client: StompClient, following followed: Set<String>, commands: AsyncStream<Command>) async throws {
        var subscribed = Set<String>()
        for destination in followed {
            try await client.send(Self.subscribe(destination))
            subscribed.insert(destination)
        }
        for await command in commands {
            switch command {
            case .publish(let frame):
                try await client.send(frame)
            case .follow(let destination):
                guard isFollowed(destination), !subscribed.contains(destination) else { continue }
                try await client.send(Self.subscribe(destination))
                subscribed.insert(destination)
            case .unfollow(let destination):
                guard !isFollowed(destination), subscribed.contains(destination) else { continue }
                try await client.send(StompFrame(.unsubscribe, headers: ["id": destination]))
                subscribed.remove(destination)
            }
        }
    }

    private func isFollowed(_ destination: String) -> Bool {
        state.withLock { $0.followed.contains(destination) }
    }

    /// A SUBSCRIBE whose id is the destination, with a receipt that says it is in place.
    private static func subscribe(_ destination: String) -> StompFrame {
        StompFrame(.subscribe, headers: ["id": destination, "destination": destination, "receipt": "follow:\(destination)"])
    }
}
