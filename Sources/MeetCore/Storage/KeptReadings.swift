import Synchronization

/// Values read from the database, kept in memory until a commit changes them: the feed's page
/// meetings (`FeedPageMeetings`) and its viewers (`FeedViewers`), the chat's posters
/// (`ChatPosters`). Their owners drop what each commit changes, on the writer, before the
/// write returns.
///
/// A read may race a commit: it keeps what it read only if nothing was dropped since before
/// the read began (`generation`), so a value older than a drop is never kept. Bounded: past
/// `budget` it starts afresh, and what it drops then is freed on another thread
/// (`CacheRelease`).
final class KeptReadings<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        var bytes = 0
        var generation: UInt64 = 0
    }

    /// What the kept values may take together, by `bytes`.
    let budget: Int
    private let bytes: @Sendable (Key, Value) -> Int
    private let state = Mutex(State())

    /// - Parameter bytes: the memory a kept value takes, roughly, with its key.
    init(budget: Int, bytes: @escaping @Sendable (Key, Value) -> Int) {
        self.budget = budget
        self.bytes = bytes
    }

    /// Take it before a read whose values may be kept (`keep(_:readSince:)`).
    var generation: UInt64 { state.withLock(\.generation) }

    /// The kept value of `key`.
    func value(_ key: Key) -> Value? {
        state.withLock { $0.values[key] }
    }

    /// The kept values among `keys`.
    func values(_ keys: [Key]) -> [Key: Value] {
        state.withLock { state in
            var found: [Key: Value] = [:]
            found.reserveCapacity(keys.count)
            for key in keys {
                if let value = state.values[key] { found[key] = value }
            }
            return found
        }
    }

    /// Keeps `values`, read from a snapshot taken after `generation` was; not if anything was
    /// dropped since, as the snapshot may predate that commit.
    func keep(_ values: [Key: Value], readSince generation: UInt64) {
        let full = state.withLock { state -> State? in
            guard state.generation == generation else { return nil }
            let added = values.reduce(0) { $0 + bytes($1.key, $1.value) }
            var full: State?
            if state.bytes + added > budget {
                full = state
                state = State(generation: generation)
            }
            for (key, value) in values {
                if let old = state.values.updateValue(value, forKey: key) { state.bytes -= bytes(key, old) }
            }
            state.bytes += added
            return full
        }
        // Consumed, so that no copy stays here to be released last on this thread.
        if full != nil { CacheRelease.release(consume full) }
    }

    /// Forgets `keys`, every value when `nil`: a commit changed them.
    func drop(_ keys: Set<Key>?) {
        if keys?.isEmpty == true { return }
        let dropped = state.withLock { state -> State? in
            state.generation &+= 1
            guard let keys else {
                guard !state.values.isEmpty else { return nil }
                let all = state
                state = State(generation: state.generation)
                return all
            }
            for key in keys {
                if let old = state.values.removeValue(forKey: key) { state.bytes -= bytes(key, old) }
            }
            return nil
        }
        if dropped != nil { CacheRelease.release(consume dropped) }
    }
}
