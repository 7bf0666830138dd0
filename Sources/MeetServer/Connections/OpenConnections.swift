#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How many connections the main port holds open, against a ceiling below the process's file
/// limit (`ulimit -n`). A process whose file table fills does not just refuse connections: it
/// dies, because libdispatch's thread-pool monitor opens `/proc/self/task/…/stat` now and then
/// and traps when that fails with EMFILE (seen with `Benchmarks/nodes-compare.sh`). So a
/// connection past the ceiling is answered 503 and closed at once, and ``reserve`` descriptors
/// stay free for SQLite, media files, the relay, mail and the runtime.
final class OpenConnections: Sendable {
    /// Descriptors kept free for everything that is not a client connection.
    static let reserve = 256
    /// The most connections held at once.
    let ceiling: Int
    private let held = Atomic<Int>(0)

    init(ceiling: Int) {
        self.ceiling = ceiling
    }

    /// The ceiling for this process: its file limit less ``reserve``, at least one.
    static func belowFileLimit() -> OpenConnections {
        let limit = sysconf(CInt(_SC_OPEN_MAX))
        return OpenConnections(ceiling: limit > 0 ? max(1, limit - reserve) : Int.max)
    }

    /// Takes a place; false when all ``ceiling`` are held (nothing is taken then).
    func admit() -> Bool {
        guard held.wrappingAdd(1, ordering: .relaxed).newValue > ceiling else { return true }
        held.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back a place taken by ``admit()``.
    func release() {
        held.wrappingSubtract(1, ordering: .relaxed)
    }
}
