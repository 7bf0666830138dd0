import NIOCore
import NIOPosix
import Stomp
import Synchronization

/// In-process fan-out: the broker, its TCP listener and the subscribing clients share one event
/// loop group; a publisher task calls ``StompBroker/publish(to:headers:body:)`` with a bounded
/// number of deliveries in flight (so no subscriber ever becomes a slow consumer), and each
/// client decodes its frames and measures publish-to-deliver latency from a timestamp in the body.
enum FanOutBenchmark {
    struct AllowAll: StompAuthenticator, StompAuthorizer {
        func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal> {
            eventLoop.makeSucceededFuture(StompPrincipal(userID: credentials.headers["login"] ?? "bench"))
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

        func percentile(_ p: Double) -> String {
            latencies.isEmpty ? "-" : format(Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6)
        }
    }

    /// Publishes round-robin over the rooms, either as fast as deliveries drain (`pace == nil`)
    /// or at `pace` messages per second, and waits for every delivery.
    static func publish(messages: Int, rooms: Int, subscribersPerRoom: Int, broker: StompBroker, stats: FanOutStats,
                        pace: Double?) async throws -> Outcome {
        stats.reset()
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
        return Outcome(deliveries: expected, seconds: seconds, latencies: stats.sortedLatencies())
    }

    static func run(rooms: Int, subscribersPerRoom: Int, messages: Int, group: any EventLoopGroup) async throws {
        let stats = FanOutStats()
        let broker = StompBroker(authenticator: AllowAll(), authorizer: AllowAll())
        let server = try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker, group: group)
        let port = server.localAddress!.port!
        var clients: [any Channel] = []
        for room in 0..<rooms {
            for _ in 0..<subscribersPerRoom {
                clients.append(try await BenchmarkSubscriber.connect(port: port, room: room, stats: stats, group: group))
            }
        }
        while stats.ready.load(ordering: .acquiring) < clients.count { try await Task.sleep(for: .milliseconds(10)) }

        // Throughput: as fast as the deliveries drain, with a bounded number in flight so that
        // no subscriber ever becomes a slow consumer.
        let throughput = try await publish(messages: messages, rooms: rooms, subscribersPerRoom: subscribersPerRoom,
                                           broker: broker, stats: stats, pace: nil)
        print("fan-out \(rooms) × \(subscribersPerRoom): \(throughput.deliveries) deliveries of 100 B in "
              + "\(format(throughput.seconds)) s = \(Int(Double(throughput.deliveries) / throughput.seconds)) msg/s")
        // Latency: a steady publication rate at half that throughput, so the figure is the
        // broker's and the network stack's, not a queue's.
        let rate = max(Double(throughput.deliveries) / throughput.seconds / Double(subscribersPerRoom) / 2, 1)
        let latency = try await publish(messages: min(messages, Int(rate * 3)), rooms: rooms, subscribersPerRoom: subscribersPerRoom,
                                        broker: broker, stats: stats, pace: rate)
        print("  at \(Int(rate * Double(subscribersPerRoom))) deliveries/s: publish-to-deliver p50 \(latency.percentile(0.5)) ms, "
              + "p99 \(latency.percentile(0.99)) ms, max \(latency.percentile(1.0)) ms")
        for client in clients { try? await client.close() }
        try await server.close()
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

    init(room: Int, stats: FanOutStats) {
        self.room = room
        self.stats = stats
    }

    static func connect(port: Int, room: Int, stats: FanOutStats, group: any EventLoopGroup) async throws -> any Channel {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BenchmarkSubscriber(room: room, stats: stats))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let hello = "CONNECT\naccept-version:1.2\nhost:bench\n\n\0SUBSCRIBE\nid:sub-0\ndestination:/topic/room.\(room)\nreceipt:ready\n\n\0"
        try await channel.writeAndFlush(ByteBuffer(string: hello))
        return channel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbound.writeImmutableBuffer(unwrapInboundIn(data))
        let now = NIODeadline.now().uptimeNanoseconds
        var latencies: [UInt64] = []
        while let frame = try! decoder.next(from: &inbound) {
            switch frame.command {
            case .message:
                let digits = frame.body.readableBytesView.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                if let sent = UInt64(String(decoding: digits, as: UTF8.self)) { latencies.append(now &- sent) }
            case .receipt:
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
