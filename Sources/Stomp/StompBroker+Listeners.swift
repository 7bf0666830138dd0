extension StompBroker {
    /// Whether any session of `userID` is subscribed to the `/topic/...` `destination` now:
    /// someone reading a room needs no push about it.
    public func isSubscribed(user userID: String, to destination: String) -> Bool {
        guard destination.hasPrefix("/topic/") else { return false }
        return registryGroups(destination).contains { group in group.subscribers.contains { $0.userID == userID } }
    }
}
