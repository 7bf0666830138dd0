import NIOCore

/// A `heart-beat` header: how often one side can send beats and wants to receive them, in
/// milliseconds, 0 meaning never.
public struct StompHeartBeat: Sendable, Equatable {
    /// The smallest interval at which this side can send heart-beats (0: it cannot).
    public var send: Int
    /// The interval at which this side wants to receive heart-beats (0: it does not).
    public var receive: Int

    /// Creates a heart-beat setting.
    public init(send: Int, receive: Int) {
        self.send = send
        self.receive = receive
    }

    /// Parses `cx,cy`; a missing header means no heart-beats, a malformed one is refused.
    init(header: String?) throws(StompProtocolError) {
        guard let header else {
            self.init(send: 0, receive: 0)
            return
        }
        let parts = header.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let send = Int(parts[0].filter { $0 != " " }), let receive = Int(parts[1].filter { $0 != " " }),
              send >= 0, receive >= 0 else {
            throw .invalidHeartBeat(header)
        }
        self.init(send: send, receive: receive)
    }

    /// The header value, `send,receive`.
    public var header: String { "\(send),\(receive)" }

    /// The negotiated intervals between this side (`self`) and the peer: how often this side
    /// must send, and how often it may expect something from the peer (`nil`: never).
    func negotiated(with peer: StompHeartBeat) -> (sendEvery: TimeAmount?, expectEvery: TimeAmount?) {
        let send = send == 0 || peer.receive == 0 ? nil : TimeAmount.milliseconds(Int64(max(send, peer.receive)))
        let expect = receive == 0 || peer.send == 0 ? nil : TimeAmount.milliseconds(Int64(max(receive, peer.send)))
        return (send, expect)
    }
}
