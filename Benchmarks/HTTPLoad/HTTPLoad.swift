import ArgumentParser
import Foundation
import HTTPLoadCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// An open-loop HTTP/1.1 load generator: a fixed request rate over keep-alive connections,
/// latency from each request's scheduled send time to the last byte of its response.
@main
struct HTTPLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "HTTPLoad",
        abstract: "Drive an HTTP/1.1 server at a fixed rate and report latency percentiles.",
        discussion: """
            The request file has one request per line: 'METHOD /target', then optional header \
            fields, each after a tab ('Authorization: Bearer ...'). Lines are sent round-robin. \
            Runs on one thread, so that the server under test keeps the other cores.
            """)

    @Option(help: "Server address.")
    var host = "127.0.0.1"

    @Option(help: "Server port.")
    var port: Int

    @Option(name: .customLong("requests"), help: "The request file.")
    var requestFile: String

    @Option(help: "Requests per second.")
    var rate = 1_000

    @Option(help: "Measured seconds.")
    var duration = 30

    @Option(help: "Seconds at the same rate before measuring.")
    var warmUp = 5

    @Option(help: "Keep-alive connections.")
    var connections = 16

    @Option(help: "Seconds to wait for the last answers before counting them as unanswered.")
    var drainTimeout = 10

    @Flag(help: "Print the figures as one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535.") }
        guard rate > 0, duration > 0, warmUp >= 0, drainTimeout >= 0 else {
            throw ValidationError("--rate and --duration must be positive, --warm-up and --drain-timeout not negative.")
        }
        guard (1...10_000).contains(connections) else { throw ValidationError("--connections must be between 1 and 10000.") }
    }

    func run() async throws {
        let text: String
        do {
            text = try String(contentsOfFile: requestFile, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read the request file \(requestFile): \(error.localizedDescription)")
        }
        let requests: [LoadRequest]
        do {
            requests = try RequestFile.parse(text)
        } catch {
            throw ValidationError("\(requestFile): \(error)")
        }
        let authority = "\(host):\(port)"
        let heads = requests.map { request in
            HTTPRequestHead(
                version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: request.target,
                headers: HTTPHeaders([("Host", authority)] + request.fields.map { ($0.name, $0.value) }))
        }
        let settings = LoadRun.Settings(
            host: host, port: port, connections: connections,
            timetable: Timetable(rate: rate, warmUpSeconds: warmUp, measuredSeconds: duration),
            drainTimeout: .seconds(Int64(drainTimeout)))

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let report: LoadReport
        do {
            report = try await loop.flatSubmit { LoadRun.start(settings, heads: heads, on: loop) }.get()
        } catch {
            try await group.shutdownGracefully()
            throw RunFailure(description: "The run against \(authority) failed: \(error)")
        }
        try await group.shutdownGracefully()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}

/// A run that could not be made (no server, say): the message and exit status 1, no usage.
struct RunFailure: Error, CustomStringConvertible {
    var description: String
}
