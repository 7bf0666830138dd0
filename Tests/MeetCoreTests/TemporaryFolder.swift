import Foundation

/// A new folder in the system's temporary directory that goes away with the last fixture
/// holding it: Swift Testing suites are structs, with no teardown of their own, and a run
/// must leave nothing behind in the temporary directory.
final class TemporaryFolder: Sendable {
    let url: URL

    /// Creates `<tmp>/<prefix><uuid>`.
    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // An SQLite file still open here is unlinked, not corrupted; its handle closes after.
        try? FileManager.default.removeItem(at: url)
    }
}
