import NIOCore
import ServiceLifecycle
import Synchronization
import WebSocket

/// The upgraded WebSocket connections of the main port, kept by one task for all of them.
///
/// Hummingbird runs each connection in a child task of one task group, and the Swift runtime
/// unlinks a finished child by walking the group's list of children. A task per WebSocket,
/// alive as long as its connection, made every disconnect walk over every open session: with
/// 19,000 sessions, closing them all took 2.4 s of CPU, nearly all in that walk. So the task of
/// the first connection that upgrades stays as the keeper of them all until none is left, and
/// the others end at once; on graceful shutdown the keeper says 1001 to each and waits for them
/// to close, as each task used to do for its own.
final class OpenWebSockets: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var hasKeeper = false
        /// The keeper's wait, resumed when the last one closes (or the keeper is cancelled).
        var keeper: CheckedContinuation<Void, Never>?
        var goingAway = false
    }

    private let state = Mutex(State())

    /// Holds `channel` until it closes. Answers true when the caller is to keep them all now
    /// (``keep()``): there was no keeper.
    func hold(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (keeps, goingAway) = state.withLock { state in
            state.channels[id] = channel
            defer { state.hasKeeper = true }
            return (!state.hasKeeper, state.goingAway)
        }
        channel.closeFuture.whenComplete { [weak self] _ in self?.closed(id) }
        if goingAway { Self.sayGoingAway(to: channel) }
        return keeps
    }

    /// Waits until no WebSocket is open; on graceful shutdown first tells each one the server
    /// is going away (1001). Returns early if the task is cancelled, leaving the next
    /// connection to keep them.
    func keep() async {
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let done = state.withLock { state -> Bool in
                        guard !state.channels.isEmpty, !Task.isCancelled else {
                            state.hasKeeper = false
                            return true
                        }
                        state.keeper = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
            } onCancel: {
                state.withLock { Self.takeKeeper(&$0) }?.resume()
            }
        } onGracefulShutdown: {
            let open = self.state.withLock { state in
                state.goingAway = true
                return Array(state.channels.values)
            }
            for channel in open { Self.sayGoingAway(to: channel) }
        }
    }

    private func closed(_ id: ObjectIdentifier) {
        let keeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.channels[id] = nil
            return state.channels.isEmpty ? Self.takeKeeper(&state) : nil
        }
        keeper?.resume()
    }

    private static func takeKeeper(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard let keeper = state.keeper else { return nil }
        state.keeper = nil
        state.hasKeeper = false
        return keeper
    }

    private static func sayGoingAway(to channel: any Channel) {
        channel.triggerUserOutboundEvent(WebSocketCloseRequest(code: .goingAway, reason: "server shutting down"), promise: nil)
    }
}
