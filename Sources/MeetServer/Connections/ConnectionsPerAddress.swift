import Synchronization

/// How many connections each client address holds open (HTTP ones, or those of the STOMP port
/// that have not signed in), shared by every event loop.
final class ConnectionsPerAddress: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot for `address`; false when it already holds `limit` (nothing is taken then).
    func admit(_ address: String) -> Bool {
        guard limit > 0 else { return true }
        return counts.withLock { counts in
            let held = counts[address, default: 0]
            guard held < limit else { return false }
            counts[address] = held + 1
            return true
        }
    }

    /// Gives back a slot taken by ``admit(_:)``.
    func release(_ address: String) {
        guard limit > 0 else { return }
        counts.withLock { counts in
            let held = counts[address, default: 1] - 1
            counts[address] = held > 0 ? held : nil
        }
    }
}
