import NIOCore

/// A connection's one running deadline, moved at every request without cancelling a timer.
///
/// Cancelling a scheduled task searches the event loop's whole timer heap, and that heap holds
/// the timers of every session on the loop (heart-beats, keep-alive pings): with thousands of
/// sessions connected, cancelling at every request cost a walk over all of them. So moving or
/// clearing the deadline only records it; a check already scheduled no later than the deadline
/// wakes up, finds the deadline still ahead (and waits again) or gone. Checks are cancelled
/// only when the connection's handler goes (``cancelChecks()``), so a closed connection leaves
/// nothing behind.
struct ConnectionDeadline {
    /// When the deadline falls; nil when none runs.
    private(set) var due: NIODeadline?
    /// The checks scheduled, earliest first.
    private var checks: [(at: NIODeadline, task: Scheduled<Void>)] = []

    /// Sets the deadline to `due`; `schedule` makes a check fire then, called only when no
    /// check comes by that time already.
    mutating func set(_ due: NIODeadline, schedule: (NIODeadline) -> Scheduled<Void>) {
        self.due = due
        scheduleCheck(by: due, schedule)
    }

    /// No deadline runs any more.
    mutating func clear() {
        due = nil
    }

    /// The earliest check fired at `now`: answers whether the deadline has passed (then it is
    /// cleared); when it still lies ahead, a check is scheduled for it if none comes in time.
    mutating func checkFired(now: NIODeadline, schedule: (NIODeadline) -> Scheduled<Void>) -> Bool {
        if !checks.isEmpty { checks.removeFirst() }
        guard let due else { return false }
        guard due > now else {
            self.due = nil
            return true
        }
        scheduleCheck(by: due, schedule)
        return false
    }

    /// Cancels every check still scheduled: the connection is gone.
    mutating func cancelChecks() {
        due = nil
        for check in checks { check.task.cancel() }
        checks = []
    }

    private mutating func scheduleCheck(by due: NIODeadline, _ schedule: (NIODeadline) -> Scheduled<Void>) {
        // Checks are only ever added before the earliest one, so the list stays in order.
        guard checks.first.map({ $0.at > due }) ?? true else { return }
        checks.insert((due, schedule(due)), at: 0)
    }
}
