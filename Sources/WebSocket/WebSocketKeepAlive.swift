import NIOCore

/// Decides, each time the idle timer fires, whether to wait, ping, or give up on the peer.
struct WebSocketKeepAlive: Sendable {
    /// What the connection does when the timer fires.
    enum Decision: Sendable, Hashable {
        /// The peer was heard from: wait another interval.
        case waitAgain(TimeAmount)
        /// The peer was quiet: ping it and give it `deadPeerTimeout` to answer.
        case ping(thenWait: TimeAmount)
        /// The peer stayed silent after a ping: drop the connection.
        case dropDeadPeer
    }

    let interval: TimeAmount
    let deadPeerTimeout: TimeAmount
    private var heardFromPeer = false
    private var pinged = false

    init(interval: TimeAmount, deadPeerTimeout: TimeAmount) {
        self.interval = interval
        self.deadPeerTimeout = deadPeerTimeout
    }

    /// Any inbound bytes prove the peer is alive.
    mutating func peerWasHeard() {
        self.heardFromPeer = true
    }

    mutating func timerFired() -> Decision {
        if self.heardFromPeer {
            self.heardFromPeer = false
            self.pinged = false
            return .waitAgain(self.interval)
        }
        if self.pinged { return .dropDeadPeer }
        self.pinged = true
        return .ping(thenWait: self.deadPeerTimeout)
    }
}
