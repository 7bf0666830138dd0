#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GRDB

/// The local wake-up call from a process that changed the database to the server that
/// tails the change log: a connection to the Unix socket `meetupd.sock` in the data
/// directory, carrying nothing. Without a server (or with a full backlog) it is dropped, and
/// polling picks the change up. The server answers every connection with one line of its
/// live figures before hanging up (``ServerLiveFigures``); a nudge does not wait for it.
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
        database.writer.add(transactionObserver: ChangeCommitObserver { _, _ in send(to: path) }, extent: .databaseLifetime)
    }

    /// Connects to the socket at `path` and hangs up at once, without waiting.
    static func send(to path: String) {
        guard let descriptor = connected(to: path, blocking: false) else { return }
        close(descriptor)
    }

    /// A socket connected to `path` (or being connected, when not `blocking`), nil when
    /// nothing listens there.
    static func connected(to path: String, blocking: Bool) -> Int32? {
        #if canImport(Glibc)
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue))
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | flags, 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8.prefix(bytes.count - 1))
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 || (!blocking && errno == EINPROGRESS) else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
