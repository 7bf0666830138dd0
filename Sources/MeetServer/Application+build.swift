import Foundation
import Hummingbird
import MeetCore

/// Builds the whole service: opens (and migrates) the database in the data directory and
/// mounts every feature's routes under `/api/v1`.
public func buildApplication(_ configuration: ServerConfiguration) throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    let database = try AppDatabase(path: configuration.dataDirectory + "/meetupd.sqlite")
    let router = Router(context: AppRequestContext.self)
    router.get("/health") { _, _ in HTTPResponse.Status.ok }
    _ = database
    return Application(
        router: router,
        server: configuration.webSocketEcho ? .http1WebSocket(.echo()) : .http1(),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "meetupd")
    )
}
