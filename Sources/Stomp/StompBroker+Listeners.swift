extension StompBroker {
    /// Whether any session of `userId` is subscribed to `destination` (`/topic/...`, or their own
    /// `/user/queue/...`) now: someone reading a room or their conversations needs no push about it.
    public func isSubscribed(user userId: String, to destination: String) -> Bool {
        guard let key = subscriptionKey(destination: destination, principal: StompPrincipal(userId: userId)) else { return false }
        return registryGroups(key).contains { group in group.subscribers.contains { $0.userId == userId } }
    }
}
