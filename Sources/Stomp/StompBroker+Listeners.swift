extension StompBroker {
    /// Whether any session of `userID` is subscribed to `destination` (`/topic/...`, or their own
    /// `/user/queue/...`) now: someone reading a room or their conversations needs no push about it.
    public func isSubscribed(user userID: String, to destination: String) -> Bool {
        guard let key = subscriptionKey(destination: destination, principal: StompPrincipal(userID: userID)) else { return false }
        return registryGroups(key).contains { group in group.subscribers.contains { $0.userID == userID } }
    }
}
