#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A value that many threads may read at once and one at a time may change: feed queries
/// scan the index side by side on every core, and the writer's updates wait for them.
/// Writers go first once waiting, so that a stream of queries cannot hold an update back.
final class ReadWriteLocked<Value>: @unchecked Sendable {
    // Safe to share: `value` is only touched while `lock` is held, shared or exclusive.
    private var value: Value
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init(_ value: Value) {
        self.value = value
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` on the value, alongside other readers.
    func read<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Runs `body` on the value alone.
    func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
