import Foundation
import Hummingbird
import MeetCore
import Prometheus

/// `GET /health`, `GET /metrics` and `GET /openapi.yaml`: what operators and client
/// developers ask the service about itself.
func addServiceRoutes(to router: Router<AppRequestContext>, database: AppDatabase, metrics: PrometheusCollectorRegistry) throws {
    struct Health: ResponseEncodable {
        var status: String
    }
    router.get("health") { _, _ in
        try await database.checkReadable()
        return Health(status: "ok")
    }
    router.get("metrics") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
    }
    let openAPI = try openAPIDocument()
    router.get("openapi.yaml") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: openAPI)))
    }
}

/// The OpenAPI document (`docs/openapi.yaml`, a symlink to the bundled `Resources/openapi.yaml`).
func openAPIDocument() throws -> Data {
    try bundledResource("openapi", withExtension: "yaml")
}

/// A file of MeetServer's `Resources/`, read once when the routes are built.
func bundledResource(_ name: String, withExtension ext: String) throws -> Data {
    guard let url = Bundle.module.url(forResource: name, withExtension: ext) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name).\(ext) in the MeetServer bundle"])
    }
    return try Data(contentsOf: url)
}
