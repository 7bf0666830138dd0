import NIOCore
import NIOPosix

// Plain release executable: `swift build -c release --product StompBenchmarks && .build/release/StompBenchmarks`.
// Arguments: [codec iterations] [fan-out messages for 1 × 1,000] (defaults below).
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let codecIterations = arguments.first ?? 2_000_000
let fanOutMessages = arguments.dropFirst().first ?? 1_000

CodecBenchmark.run(iterations: codecIterations)
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
try await FanOutBenchmark.run(rooms: 1, subscribersPerRoom: 1_000, messages: fanOutMessages, group: group)
try await FanOutBenchmark.run(rooms: 100, subscribersPerRoom: 10, messages: fanOutMessages * 100, group: group)
try await group.shutdownGracefully()
