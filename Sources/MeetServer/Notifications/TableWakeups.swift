import GRDB
import MeetCore
import Synchronization

/// Wakes a worker after committed changes of a table, doing nothing on the writer's queue
/// but a flag: changes arriving while the worker is busy fold into one wake-up.
final class TableWakeups: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let observation = Mutex<AnyDatabaseCancellable?>(nil)

    init(table: String, in database: AppDatabase) {
        let cancellable = database.observeCommits(to: table) { [weak self] in self?.ring() }
        observation.withLock { $0 = cancellable }
    }

    /// Wakes the waiting worker, or the next one to wait.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after the next change (at once if one came since the last wait), after
    /// `timeout`, or when the task is cancelled, whichever is first. One worker waits at a time.
    func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled when a change came first: then it must not ring.
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self.ring()
            }
            group.addTask {
                // A cancelled worker (its service group cancelled, not stopped gracefully) must
                // not wait for a change that may never come.
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let now = self.state.withLock { state -> Bool in
                            if state.rung {
                                state.rung = false
                                return true
                            }
                            state.waiter = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    self.ring()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Stops observing.
    func cancel() {
        observation.withLock { $0?.cancel() }
    }
}
