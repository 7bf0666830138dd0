import HTTPLoadCore
import Testing

@Suite struct TimetableTests {
    @Test func countsWarmUpAndMeasuredRequestsFromTheRate() {
        let timetable = Timetable(rate: 1_000, warmUpSeconds: 5, measuredSeconds: 30)
        #expect(timetable.warmUpCount == 5_000)
        #expect(timetable.measuredCount == 30_000)
        #expect(timetable.totalCount == 35_000)
        #expect(!timetable.isMeasured(4_999))
        #expect(timetable.isMeasured(5_000))
    }

    @Test func requestsAreEvenlySpacedWithoutDrift() {
        let timetable = Timetable(rate: 3, warmUpSeconds: 0, measuredSeconds: 1_000)
        #expect(timetable.offset(of: 0) == 0)
        #expect(timetable.offset(of: 1) == 333_333_333)
        #expect(timetable.offset(of: 2) == 666_666_666)
        // Summing 333,333,333 ns intervals would be 1 ns short per second by now.
        #expect(timetable.offset(of: 3_000) == 1_000_000_000_000)
    }

    @Test(arguments: [1, 3, 7, 1_000, 4_000, 30_000])
    func aRequestIsDueExactlyAtItsOffset(rate: Int) {
        let timetable = Timetable(rate: rate, warmUpSeconds: 1, measuredSeconds: 2)
        for number in 0..<timetable.totalCount {
            let offset = timetable.offset(of: number)
            #expect(timetable.dueCount(after: offset) == number + 1)
            if number > 0 { #expect(timetable.dueCount(after: offset - 1) == number) }
        }
    }

    @Test func nothingIsDueBeforeTheStartAndNothingBeyondTheRun() {
        let timetable = Timetable(rate: 100, warmUpSeconds: 1, measuredSeconds: 1)
        #expect(timetable.dueCount(after: -1) == 0)
        #expect(timetable.dueCount(after: 0) == 1)
        #expect(timetable.dueCount(after: 60_000_000_000) == 200)
    }
}
