import Foundation
import Synchronization

/// Counts failed logins per account and per client address in a sliding window, and says
/// how long a caller must wait once either has too many.
///
/// Kept in memory: one process serves the database, and a restart forgiving past failures
/// is acceptable.
public final class LoginThrottle: Sendable {
    /// At most `failures` failed attempts within `window` seconds.
    public struct Limit: Sendable {
        /// How many failures within `window` lock the key out.
        public var failures: Int
        /// The sliding window, in seconds.
        public var window: TimeInterval

        /// A limit of `failures` failed attempts within `window` seconds.
        public init(failures: Int, window: TimeInterval) {
            self.failures = failures
            self.window = window
        }
    }

    private let perAccount: Limit
    private let perAddress: Limit
    /// Failure times by key (`account:<email>`, `address:<ip>`), oldest first.
    private let failures = Mutex<[String: [Date]]>([:])
    /// Above this many keys, stale ones are swept so memory stays bounded.
    private static let sweepThreshold = 50_000

    /// A throttle allowing 5 failures per account and 30 per address within 15 minutes by default.
    public init(
        perAccount: Limit = .init(failures: 5, window: 15 * 60),
        perAddress: Limit = .init(failures: 30, window: 15 * 60)
    ) {
        self.perAccount = perAccount
        self.perAddress = perAddress
    }

    /// Seconds to wait before trying again, or `nil` when an attempt may go ahead.
    public func retryAfter(account: String, address: String?, now: Date) -> TimeInterval? {
        failures.withLock { table in
            let waits = keys(account: account, address: address).compactMap { key, limit -> TimeInterval? in
                let recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < limit.window }
                guard recent.count >= limit.failures, let oldest = recent.first else { return nil }
                return limit.window - now.timeIntervalSince(oldest)
            }
            return waits.max()
        }
    }

    /// Notes a failed login against both the account and the client address.
    public func recordFailure(account: String, address: String?, now: Date) {
        failures.withLock { table in
            if table.count > Self.sweepThreshold {
                let longest = max(perAccount.window, perAddress.window)
                table = table.filter { now.timeIntervalSince($0.value.last ?? now) < longest }
            }
            for (key, limit) in keys(account: account, address: address) {
                var times = (table[key] ?? []).filter { now.timeIntervalSince($0) < limit.window }
                times.append(now)
                table[key] = times.suffix(limit.failures)
            }
        }
    }

    /// A successful login clears the account's count; the address keeps its count.
    public func recordSuccess(account: String) {
        _ = failures.withLock { $0.removeValue(forKey: "account:" + account) }
    }

    private func keys(account: String, address: String?) -> [(String, Limit)] {
        var keys = [("account:" + account, perAccount)]
        if let address {
            keys.append(("address:" + address, perAddress))
        }
        return keys
    }
}
