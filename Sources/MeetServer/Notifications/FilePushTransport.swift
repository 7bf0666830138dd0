import Foundation
import MeetCore

/// The default transport: nothing leaves the machine. Each delivery is one JSON file in
/// `<data>/pushdrop/`, `<job>-<attempt>.json`, holding the target, the headers and exactly
/// the body a push service would get.
struct FilePushTransport: PushTransport {
    let directory: URL

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
    }

    func deliver(_ message: PushMessage) async -> PushOutcome {
        let name = "\(message.jobId)-\(message.attempt).json"
        do {
            let envelope: [String: Any] = [
                "service": message.service.rawValue, "environment": message.environment.rawValue, "token": message.token,
                "notificationId": message.notificationId, "jobId": message.jobId, "attempt": message.attempt,
                "headers": message.headers,
            ]
            var file = try JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes])
            // The body goes in byte for byte, as the service would receive it.
            file.removeLast()
            file.append(contentsOf: Array(#","body":"#.utf8))
            file.append(message.body)
            file.append(UInt8(ascii: "}"))
            // Written aside, then renamed: a reader never sees half a file.
            let temporary = directory.appendingPathComponent(".\(name).tmp")
            try file.write(to: temporary)
            guard rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
                return .retry(reason: "pushdrop: rename failed, errno \(errno)", after: nil)
            }
            return .delivered
        } catch {
            return .retry(reason: "pushdrop: \(error)", after: nil)
        }
    }
}
