import Foundation
import Testing
@testable import MeetServer

/// `docs/openapi.yaml` must describe exactly the routes the server mounts.
@Suite("OpenAPI document")
struct OpenAPICoverageTests {
    /// `METHOD /path` for every operation in the document, read from its `paths:` section.
    static func documentedOperations() throws -> Set<String> {
        let text = String(decoding: try openAPIDocument(), as: UTF8.self)
        var operations = Set<String>()
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("components:") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let method = ["get", "put", "post", "patch", "delete"].first(where: { line == "    \($0):" }) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryOperationRouted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("meetupd-openapi-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let router = try buildRouter(ServerConfiguration(dataDirectory: directory.path))
        let routed = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
        let documented = try Self.documentedOperations()
        #expect(routed.subtracting(documented).sorted() == [], "routes missing from docs/openapi.yaml")
        #expect(documented.subtracting(routed).sorted() == [], "documented operations the server does not route")
        #expect(documented.contains("POST /api/v1/auth/login"))
    }
}
