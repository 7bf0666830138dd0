#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GRDB

/// The local wake-up call from a process that changed the database to the server that
/// tails the change log: a connection to the Unix socket `meetupd.sock` in the data
/// directory, carrying nothing. Without a server (or with a full backlog) it is dropped, and
/// polling picks the change up.
public enum ChangeNudge {
    /// The socket's file name inside the data directory.
    public static let socketName = "meetupd.sock"

    /// The socket's path for a data directory, or nil when it is too long for a Unix
    /// socket address (then the server only polls).
    public static func socketPath(dataDirectory: String) -> String? {
        let path = dataDirectory + "/" + socketName
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        return path.utf8.count < capacity ? path : nil
    }

    /// Makes every commit of `database` that logs a change nudge the server of
    /// `dataDirectory`: for processes other than the server.
    public static func install(on database: AppDatabase, dataDirectory: String) {
        guard let path = socketPath(dataDirectory: dataDirectory) else { return }
        database.writer.add(transactionObserver: ChangeCommitObserver { _ in send(to: path) }, extent: .databaseLifetime)
    }

    /// Connects to the socket at `path` and hangs up at once, without waiting.
    static func send(to path: String) {
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8.prefix(bytes.count - 1))
        }
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
