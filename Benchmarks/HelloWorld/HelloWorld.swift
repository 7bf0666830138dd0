import Hummingbird

/// The anchor for the REST benchmarks: Hummingbird 2's hello world, one route answering a
/// short text, served the way meetupd serves (HTTP/1.1, the default event loop group).
///
///     HelloWorld [port]      # GET /hello → "Hello, world!" on 127.0.0.1 (default port 8081)
@main
struct HelloWorld {
    static func main() async throws {
        let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8081
        let router = Router()
        router.get("hello") { _, _ in "Hello, world!" }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
