import Hummingbird
import Logging
import MeetCore
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing
import WebSocket
@testable import MeetServer

/// The WebSocket upgrade on the same port as REST, over real loopback sockets.
@Suite(.timeLimit(.minutes(1))) struct WebSocketEndToEndTests {
    /// Runs a server with the echo endpoint on a free port while `body` talks to it; `body`
    /// gets the port and a function that starts the graceful shutdown.
    func withEchoServer(_ body: @escaping @Sendable (Int, @escaping @Sendable () async -> Void) async throws -> Void) async throws {
        let router = Router()
        router.get("/health") { _, _ in HTTPResponse.Status.ok }
        // Where a handler runs, and whether it comes back there once it has waited elsewhere.
        router.get("/thread") { _, _ -> String in
            let before = MultiThreadedEventLoopGroup.currentEventLoop
            try await Task.sleep(for: .milliseconds(2))
            guard let before, before === MultiThreadedEventLoopGroup.currentEventLoop else { return "elsewhere" }
            return "one event loop"
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: .http1WebSocket(.echo(), policy: ConnectionPolicy(
                limits: HTTPConnectionLimits(), trustedProxies: TrustedProxies(), localizer: try Localizer.bundled())),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { portContinuation.yield($0.localAddress!.port!) }
        )
        let services = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body(port, { await services.triggerGracefulShutdown() })
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }

    /// Sends `request`, then `frames`, and returns everything the server sent until it closed.
    static func exchange(port: Int, request: String, frames: [[UInt8]] = []) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            for frame in frames { try await outbound.write(ByteBuffer(bytes: frame)) }
            var received = [UInt8]()
            for try await chunk in inbound { received += chunk.readableBytesView }
            return received
        }
    }

    static func upgradeRequest(path: String = "/ws", version: String = "13") -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: \(version)\r\n\r\n"
    }

    /// A masked client frame.
    static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [1, 2, 3, 4]
        return [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    @Test func echoesOverTheSamePortAsRESTAndClosesCleanly() async throws {
        try await self.withEchoServer { port, _ in
            let reply = try await Self.exchange(
                port: port,
                request: Self.upgradeRequest(),
                frames: [
                    Self.frame(opcode: 0x1, Array("hello".utf8)),
                    Self.frame(opcode: 0x2, [0, 1, 2]),
                    Self.frame(opcode: 0x8, [0x03, 0xE8]),
                ]
            )
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
            let body = reply.split(separator: Array("\r\n\r\n".utf8)).dropFirst().joined()
            let expected: [UInt8] = [0x81, 5] + Array("hello".utf8) + [0x82, 3, 0, 1, 2] + [0x88, 2, 0x03, 0xE8]
            #expect(Array(body) == expected)

            let health = try await Self.exchange(port: port, request: "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(String(decoding: health, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
    }

    /// Requests are handled on their connection's event loop, not Swift's cooperative pool,
    /// also after an await hands the task elsewhere (issue 21: two thread wake-ups saved).
    @Test func requestsRunOnTheirConnectionsEventLoop() async throws {
        try await self.withEchoServer { port, _ in
            let reply = try await Self.exchange(port: port, request: "GET /thread HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text.hasSuffix("\r\n\r\none event loop"))
        }
    }

    @Test func refusedUpgradesGetAnHTTPStatus() async throws {
        try await self.withEchoServer { port, _ in
            let wrongVersion = try await Self.exchange(port: port, request: Self.upgradeRequest(version: "8"))
            let wrongVersionText = String(decoding: wrongVersion, as: UTF8.self)
            #expect(wrongVersionText.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
            #expect(wrongVersionText.lowercased().contains("sec-websocket-version: 13\r\n"))
            let wrongPath = try await Self.exchange(port: port, request: Self.upgradeRequest(path: "/elsewhere"))
            #expect(String(decoding: wrongPath, as: UTF8.self).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        }
    }

    /// A session on the echo server: upgrades, says `upgraded`, closes itself (1000) once
    /// `closing` yields if given, answers the server's close; returns what came after the head.
    static func session(port: Int, upgraded: AsyncStream<Void>.Continuation, closing: AsyncStream<Void>?) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: Self.upgradeRequest()))
            var received = [UInt8]()
            var headEnd: Int?
            var closed = false
            for try await chunk in inbound {
                received += chunk.readableBytesView
                if headEnd == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                    headEnd = end
                    upgraded.yield()
                    if let closing {
                        for await _ in closing { break }
                        closed = true
                        try await outbound.write(ByteBuffer(bytes: Self.frame(opcode: 0x8, [0x03, 0xE8])))
                    }
                }
                if !closed, let headEnd, received[headEnd...].first == 0x88 {
                    // Answer the server's close so it can drop TCP without waiting.
                    closed = true
                    try await outbound.write(ByteBuffer(bytes: Self.frame(opcode: 0x8, [0x03, 0xE9])))
                }
            }
            return Array(received[(headEnd ?? received.endIndex)...])
        }
    }

    @Test func shutdownSays1001ToEverySessionAlsoAfterTheFirstHasGone() async throws {
        try await self.withEchoServer { port, shutDown in
            let (upgrades, upgraded) = AsyncStream.makeStream(of: Void.self)
            let (closing, close) = AsyncStream.makeStream(of: Void.self)
            var next = upgrades.makeAsyncIterator()
            // The first session's task keeps every session (OpenWebSockets); it leaves first.
            async let first = Self.session(port: port, upgraded: upgraded, closing: closing)
            _ = await next.next()
            async let second = Self.session(port: port, upgraded: upgraded, closing: nil)
            async let third = Self.session(port: port, upgraded: upgraded, closing: nil)
            _ = await next.next()
            _ = await next.next()
            close.yield()
            let firstBody = try await first
            #expect(Array(firstBody.prefix(4)) == [0x88, 2, 0x03, 0xE8], "the server echoes the client's 1000")
            await shutDown()
            for body in try await [second, third] {
                #expect(body.first == 0x88)
                #expect(Array(body.dropFirst(2).prefix(2)) == [0x03, 0xE9], "1001 going away")
            }
        }
    }
}
