import Glibc
import NIOCore
import NIOPosix
import Stomp
@_spi(Tooling) import WebSocket
import Synchronization

/// In-process fan-out: the broker and its listener run on one event loop (one thread, as if on
/// one core), the subscribing clients on others; a publisher task calls
/// ``StompBroker/publish(to:headers:body:)`` with a bounded number of deliveries in flight (so
/// no subscriber ever becomes a slow consumer), and each client decodes its frames and measures
/// publish-to-deliver latency from a timestamp in the body. The broker thread's CPU time (user
/// and kernel) per delivery is reported too: the figure that does not depend on the clients.
enum FanOutBenchmark {
    /// How subscribers reach the broker.
    enum Transport: String, CaseIterable {
        /// STOMP over plain TCP.
        case tcp
        /// STOMP over our WebSocket layer (the handshake skipped), uncompressed.
        case ws
        /// The same with permessage-deflate (no context takeover, so a broadcast is compressed
        /// once); the clients count messages without inflating them, so no latency is reported.
        case wsDeflate = "ws-deflate"
    }

    struct AllowAll: StompAuthenticator, StompAuthorizer {
        func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal> {
            eventLoop.makeSucceededFuture(StompPrincipal(userId: credentials.headers["login"] ?? "bench"))
        }

        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }
    }

    struct Outcome {
        var deliveries: Int
        var seconds: Double
        var latencies: [UInt64]
        /// CPU time the broker's thread spent meanwhile, user and kernel.
        var brokerCPUSeconds: Double

        func percentile(_ p: Double) -> String {
            latencies.isEmpty ? "-" : format(Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6)
        }
    }

    /// Publishes round-robin over the rooms, either as fast as deliveries drain (`pace == nil`)
    /// or at `pace` messages per second, and waits for every delivery.
    static func publish(messages: Int, rooms: Int, subscribersPerRoom: Int, broker: StompBroker, stats: FanOutStats,
                        brokerLoop: any EventLoop, pace: Double?) async throws -> Outcome {
        stats.reset()
        let cpuBefore = try await brokerLoop.submit(threadCPUSeconds).get()
        let window = 8192
        let padding = String(repeating: "x", count: 100)
        let clock = ContinuousClock()
        let start = clock.now
        let begin = NIODeadline.now()
        for index in 0..<messages {
            if let pace {
                try await clock.sleep(until: start + .nanoseconds(Int64(Double(index) / pace * 1e9)))
            } else {
                while index * subscribersPerRoom - stats.delivered.load(ordering: .relaxed) > window {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            var body = ByteBuffer(string: String(NIODeadline.now().uptimeNanoseconds))
            body.writeString(String(padding.prefix(100 - body.readableBytes)))
            broker.publish(to: "/topic/room.\(index % rooms)", body: body)
        }
        let expected = messages * subscribersPerRoom
        while stats.delivered.load(ordering: .relaxed) < expected { try await Task.sleep(for: .milliseconds(1)) }
        let seconds = Double((NIODeadline.now() - begin).nanoseconds) / 1e9
        let cpu = try await brokerLoop.submit(threadCPUSeconds).get() - cpuBefore
        return Outcome(deliveries: expected, seconds: seconds, latencies: stats.sortedLatencies(), brokerCPUSeconds: cpu)
    }

    /// The calling thread's CPU time so far, user and kernel.
    @Sendable static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A listener on `brokerLoop` whose connections are sessions of `broker` over `transport`.
    static func bind(_ transport: Transport, broker: StompBroker, brokerLoop: any EventLoop) async throws -> any Channel {
        guard transport != .tcp else {
            return try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker, group: brokerLoop)
        }
        return try await ServerBootstrap(group: brokerLoop)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addWebSocketLayer(perMessageDeflate: transport == .wsDeflate)
                    try broker.addWebSocketSession(to: pipeline, transportToken: nil)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    /// `stalled`: each room gets one more subscriber, which stops reading once subscribed (it is
    /// cut off as a slow consumer when its buffers are full); what it costs the others shows
    /// against a run without.
    static func run(rooms: Int, subscribersPerRoom: Int, messages: Int, transport: Transport, stalled: Bool,
                    clientGroup: any EventLoopGroup) async throws {
        let stats = FanOutStats()
        let broker = StompBroker(authenticator: AllowAll(), authorizer: AllowAll())
        let brokerGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let brokerLoop = brokerGroup.next()
        let server = try await bind(transport, broker: broker, brokerLoop: brokerLoop)
        let port = server.localAddress!.port!
        var clients: [any Channel] = []
        for room in 0..<rooms {
            for index in 0..<subscribersPerRoom + (stalled ? 1 : 0) {
                clients.append(try await BenchmarkSubscriber.connect(port: port, room: room, webSocket: transport != .tcp,
                                                                     stalls: index == subscribersPerRoom,
                                                                     stats: stats, group: clientGroup))
            }
        }
        while stats.ready.load(ordering: .acquiring) < clients.count { try await Task.sleep(for: .milliseconds(10)) }

        // Throughput: as fast as the deliveries drain, with a bounded number in flight so that
        // no subscriber ever becomes a slow consumer.
        let throughput = try await publish(messages: messages, rooms: rooms, subscribersPerRoom: subscribersPerRoom,
                                           broker: broker, stats: stats, brokerLoop: brokerLoop, pace: nil)
        print("fan-out \(rooms) × \(subscribersPerRoom)\(stalled ? " + 1 stalled" : "") over \(transport.rawValue): \(throughput.deliveries) deliveries of 100 B in "
              + "\(format(throughput.seconds)) s = \(Int(Double(throughput.deliveries) / throughput.seconds)) msg/s, "
              + "broker CPU \(format(throughput.brokerCPUSeconds / Double(throughput.deliveries) * 1e6)) µs per delivery")
        guard transport != .wsDeflate else {
            for client in clients { try? await client.close() }
            try await server.close()
            try await brokerGroup.shutdownGracefully()
            return
        }
        // Latency: a steady publication rate at half that throughput, so the figure is the
        // broker's and the network stack's, not a queue's.
        let rate = max(Double(throughput.deliveries) / throughput.seconds / Double(subscribersPerRoom) / 2, 1)
        let latency = try await publish(messages: min(messages, Int(rate * 3)), rooms: rooms, subscribersPerRoom: subscribersPerRoom,
                                        broker: broker, stats: stats, brokerLoop: brokerLoop, pace: rate)
        print("  at \(Int(rate * Double(subscribersPerRoom))) deliveries/s: publish-to-deliver p50 \(latency.percentile(0.5)) ms, "
              + "p99 \(latency.percentile(0.99)) ms, max \(latency.percentile(1.0)) ms")
        for client in clients { try? await client.close() }
        try await server.close()
        try await brokerGroup.shutdownGracefully()
    }
}

/// Counters shared by every subscriber of one run.
final class FanOutStats: Sendable {
    let ready = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    private let latencies = Mutex<[UInt64]>([])

    func record(_ sample: [UInt64]) {
        latencies.withLock { $0.append(contentsOf: sample) }
    }

    func reset() {
        delivered.store(0, ordering: .relaxed)
        latencies.withLock { $0.removeAll() }
    }

    func sortedLatencies() -> [UInt64] {
        latencies.withLock { $0.sorted() }
    }
}

/// A subscriber that decodes with our frame decoder and times each message.
final class BenchmarkSubscriber: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let stats: FanOutStats
    private let room: Int
    private var decoder = StompFrameDecoder()
    private var inbound = ByteBuffer()
    /// Undoes WebSocket framing first, if the subscriber came in over WebSocket.
    private var webSocket: BenchmarkWebSocketFraming?
    /// Whether the SUBSCRIBE's receipt has come.
    private var ready = false
    /// Whether the subscriber stops reading once subscribed.
    private let stalls: Bool

    init(room: Int, webSocket: Bool, stalls: Bool, stats: FanOutStats) {
        self.room = room
        self.stalls = stalls
        self.stats = stats
        self.webSocket = webSocket ? BenchmarkWebSocketFraming() : nil
    }

    static func connect(port: Int, room: Int, webSocket: Bool, stalls: Bool, stats: FanOutStats,
                        group: any EventLoopGroup) async throws -> any Channel {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BenchmarkSubscriber(room: room, webSocket: webSocket, stalls: stalls, stats: stats))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let hello = ByteBuffer(string: "CONNECT\naccept-version:1.2\nhost:bench\n\n\0"
                               + "SUBSCRIBE\nid:sub-0\ndestination:/topic/room.\(room)\nreceipt:ready\n\n\0")
        try await channel.writeAndFlush(webSocket ? BenchmarkWebSocketFraming.clientFrame(hello) : hello)
        return channel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !(stalls && ready) else {
            _ = context.channel.setOption(.autoRead, value: false)
            return
        }
        guard webSocket != nil else {
            inbound.writeImmutableBuffer(unwrapInboundIn(data))
            decode()
            return
        }
        var bytes = unwrapInboundIn(data)
        var compressed = 0
        while let frame = webSocket!.next(from: &bytes) {
            var payload = frame.payload
            if frame.compressed {
                // A compressed MESSAGE counts once subscribed; CONNECTED may be compressed too.
                if ready { compressed += 1 }
            } else {
                inbound.writeBuffer(&payload)
                decode()
            }
        }
        if compressed > 0 { stats.delivered.add(compressed, ordering: .relaxed) }
    }

    private func decode() {
        let now = NIODeadline.now().uptimeNanoseconds
        var latencies: [UInt64] = []
        while let frame = try! decoder.next(from: &inbound) {
            switch frame.command {
            case .message:
                let digits = frame.body.readableBytesView.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                if let sent = UInt64(String(decoding: digits, as: UTF8.self)) { latencies.append(now &- sent) }
            case .receipt:
                ready = true
                stats.ready.add(1, ordering: .releasing)
            default:
                break
            }
        }
        inbound.discardReadBytes()
        if !latencies.isEmpty {
            stats.record(latencies)
            stats.delivered.add(latencies.count, ordering: .relaxed)
        }
    }
}
