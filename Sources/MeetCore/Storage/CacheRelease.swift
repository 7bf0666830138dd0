import Dispatch

/// Where kept readings (`KeptReadings`) free what they drop at once: freeing a full page
/// cache's 19,000 readings took 16 ms, and under the cache's lock, on the event loop of the
/// request that filled it, it held up every page (p99.9 of the relevance feed at 1,000/s,
/// docs/benchmarks.md).
enum CacheRelease {
    static let queue = DispatchQueue(label: "meetupd.cache-release", qos: .utility)

    /// Frees `value` on `queue`: it travels in a box that only the queued block empties, so
    /// that the last reference goes there, not wherever the box is released.
    static func release<Value>(_ value: consuming Value) {
        let box = Box(value)
        queue.async { box.value = nil }
    }

    private final class Box<Value>: @unchecked Sendable {
        // Set once here, emptied once on `queue`.
        var value: Value?

        init(_ value: consuming Value) {
            self.value = value
        }
    }
}
