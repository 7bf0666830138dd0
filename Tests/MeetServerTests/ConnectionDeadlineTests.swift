import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing
@testable import MeetServer

/// The HTTP guard's deadline moves at every request without cancelling timers: only a check
/// that could come too late is scheduled, and a check finds the deadline as it is then.
@Suite struct ConnectionDeadlineTests {
    /// Schedules checks that do nothing (the tests fire them by hand), noting when, and hears
    /// which were cancelled.
    final class Checks {
        let loop = EmbeddedEventLoop()
        var times: [NIODeadline] = []
        let cancelled = NIOLockedValueBox(0)

        func schedule(_ time: NIODeadline) -> Scheduled<Void> {
            times.append(time)
            let task = loop.scheduleTask(deadline: time) {}
            task.futureResult.whenFailure { [cancelled] _ in cancelled.withLockedValue { $0 += 1 } }
            return task
        }
    }

    private func at(_ seconds: UInt64) -> NIODeadline {
        .uptimeNanoseconds(seconds * 1_000_000_000)
    }

    @Test func movingTheDeadlineWaitsForTheCheckAlreadyScheduled() {
        let checks = Checks()
        var deadline = ConnectionDeadline()
        deadline.set(at(10), schedule: checks.schedule)
        deadline.set(at(20), schedule: checks.schedule)
        deadline.clear()
        deadline.set(at(30), schedule: checks.schedule)
        #expect(checks.times == [at(10)], "later deadlines wait for the check at 10")

        let expiredAt10 = deadline.checkFired(now: at(10), schedule: checks.schedule)
        #expect(!expiredAt10)
        #expect(checks.times == [at(10), at(30)], "the check finds the deadline ahead and waits for it")
        let expiredAt30 = deadline.checkFired(now: at(30), schedule: checks.schedule)
        #expect(expiredAt30)
        #expect(deadline.due == nil)
        #expect(checks.cancelled.withLockedValue { $0 } == 0)
    }

    @Test func anEarlierDeadlineGetsACheckOfItsOwn() {
        let checks = Checks()
        var deadline = ConnectionDeadline()
        deadline.set(at(60), schedule: checks.schedule)
        deadline.set(at(10), schedule: checks.schedule)
        #expect(checks.times == [at(60), at(10)])
        let expiredAt10 = deadline.checkFired(now: at(10), schedule: checks.schedule)
        #expect(expiredAt10)
        // The check at 60 still fires, and finds nothing to do.
        let expiredAt60 = deadline.checkFired(now: at(60), schedule: checks.schedule)
        #expect(!expiredAt60)
        #expect(checks.times == [at(60), at(10)])
    }

    @Test func aClearedDeadlineNeverExpires() {
        let checks = Checks()
        var deadline = ConnectionDeadline()
        deadline.set(at(10), schedule: checks.schedule)
        deadline.clear()
        let expiredAt10 = deadline.checkFired(now: at(10), schedule: checks.schedule)
        #expect(!expiredAt10)
        #expect(checks.times == [at(10)])
    }

    @Test func aGoneConnectionCancelsItsChecks() {
        let checks = Checks()
        var deadline = ConnectionDeadline()
        deadline.set(at(60), schedule: checks.schedule)
        deadline.set(at(10), schedule: checks.schedule)
        deadline.cancelChecks()
        #expect(checks.cancelled.withLockedValue { $0 } == 2)
        #expect(deadline.due == nil)
    }
}
