import NIOCore
import NIOPosix

// Plain release executable: `swift build -c release --product StompBenchmarks && .build/release/StompBenchmarks`.
// Arguments: [codec iterations] [fan-out messages for 1 × 1,000] [transport...] [RxS...]
// (defaults below). Codec iterations 0 skips the codec benchmark; transports are tcp, ws and
// ws-deflate (default tcp and ws); scenarios are rooms x subscribers, e.g. 1x1000 or 100x10
// (default both), each run with the fan-out messages × 1,000 / subscribers per room published;
// `stalled` adds a subscriber per room that stops reading.
let numbers = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let codecIterations = numbers.first ?? 2_000_000
let fanOutMessages = numbers.dropFirst().first ?? 1_000
let names = CommandLine.arguments.dropFirst().filter { Int($0) == nil }
let chosenTransports = names.compactMap(FanOutBenchmark.Transport.init(rawValue:))
let transports = chosenTransports.isEmpty ? [.tcp, .ws] : chosenTransports
let chosenScenarios = names.compactMap { name -> (rooms: Int, subscribers: Int)? in
    let parts = name.split(separator: "x").compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}
let stalled = names.contains("stalled")
let scenarios = chosenScenarios.isEmpty ? [(rooms: 1, subscribers: 1_000), (rooms: 100, subscribers: 10)] : chosenScenarios

if codecIterations > 0 { CodecBenchmark.run(iterations: codecIterations) }
let clients = MultiThreadedEventLoopGroup(numberOfThreads: max(System.coreCount - 1, 1))
for transport in transports {
    for scenario in scenarios {
        try await FanOutBenchmark.run(rooms: scenario.rooms, subscribersPerRoom: scenario.subscribers,
                                      messages: fanOutMessages * 1_000 / scenario.subscribers, transport: transport,
                                      stalled: stalled, clientGroup: clients)
    }
}
try await clients.shutdownGracefully()
