/// A destination's first subscriber arriving on a broker, or its last leaving
/// (``StompBroker/onInterest(_:)``).
public enum StompInterest: Sendable, Equatable {
    /// A destination as subscribers name it; `userId` says whose queue a `/user/queue/...` is.
    public struct Destination: Sendable, Hashable {
        /// As subscribed to (`/topic/meetings.7.chat`, `/user/queue/direct`).
        public var destination: String
        /// The queue's owner for a `/user/queue/...` destination; nil for topics.
        public var userId: String?
    }

    /// The destination had no subscriber and is about to get one.
    case began(Destination)
    /// The destination's last subscriber has gone.
    case ended(Destination)
}
