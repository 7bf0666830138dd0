import Foundation
import Synchronization

/// Where the end of a sign-in is announced to the connections that outlive a request.
///
/// REST asks about the token on every request, so revoking it is enough there; a STOMP session
/// is authenticated once and stays open, so it must be told. Logout and password reset announce
/// here (``AccountService``); moderation calls ``endAll(ofUser:reason:)`` for a ban. The server
/// listens (``onEnd(_:)``) and closes the affected sessions with an ERROR naming `reason`.
///
/// This only closes connections: whoever ends a sign-in makes its token invalid first (delete
/// it, ban the user), or the client simply connects again.
public final class LiveSessions: Sendable {
    /// One announcement: which sessions end, and why.
    public struct Ending: Sendable, Equatable {
        /// The user whose sessions end.
        public var userId: String
        /// Only the sessions signed in with the token of this SHA-256 hash
        /// (``RandomToken/hash(_:)``); `nil` for every session of the user.
        public var tokenHash: Data?
        /// Told to the client, e.g. "signed out".
        public var reason: String
    }

    private let listeners = Mutex<[@Sendable (Ending) -> Void]>([])

    /// Creates a hub with no listener.
    public init() {}

    /// Calls `listener` (on the announcing thread; it must not block) for every ending from now on.
    public func onEnd(_ listener: @escaping @Sendable (Ending) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Ends every live session of `userId`, telling each client `reason`.
    public func endAll(ofUser userId: String, reason: String) {
        announce(Ending(userId: userId, tokenHash: nil, reason: reason))
    }

    /// Ends the live sessions signed in with one token of `userId`.
    public func end(userId: String, tokenHash: Data, reason: String) {
        announce(Ending(userId: userId, tokenHash: tokenHash, reason: reason))
    }

    private func announce(_ ending: Ending) {
        for listener in listeners.withLock({ $0 }) { listener(ending) }
    }
}
