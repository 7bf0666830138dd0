import Foundation

/// A bearer token kept until it is due for renewal (the APNs provider token, the FCM access
/// token): concurrent pushes share one renewal instead of each making their own.
actor CachedToken {
    typealias Fresh = (value: String, renewAt: Date)

    private var current: Fresh?
    private var renewal: Task<Fresh, any Error>?
    private let renew: @Sendable () async throws -> Fresh
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date, renew: @escaping @Sendable () async throws -> Fresh) {
        self.now = now
        self.renew = renew
    }

    /// The current token, renewed first when it is due.
    func value() async throws -> String {
        if let current, now() < current.renewAt { return current.value }
        let task = renewal ?? Task { try await renew() }
        renewal = task
        defer { renewal = nil }
        let fresh = try await task.value
        current = fresh
        return fresh.value
    }

    /// Forgets the token after the service refused it; the next push renews it.
    func invalidate() {
        current = nil
    }
}
