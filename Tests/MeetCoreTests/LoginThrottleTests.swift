import Foundation
import Testing
@testable import MeetCore

@Suite("Login throttling")
struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func accountLocksAfterTooManyFailuresAndReopens() {
        let throttle = LoginThrottle(perAccount: .init(failures: 3, window: 60), perAddress: .init(failures: 100, window: 60))
        for second in 0..<3 {
            #expect(throttle.retryAfter(account: "a", address: "1.1.1.1", now: start + Double(second)) == nil)
            throttle.recordFailure(account: "a", address: "1.1.1.1", now: start + Double(second))
        }
        #expect(throttle.retryAfter(account: "a", address: "2.2.2.2", now: start + 10) == 50)
        #expect(throttle.retryAfter(account: "b", address: "1.1.1.1", now: start + 10) == nil)
        #expect(throttle.retryAfter(account: "a", address: nil, now: start + 60) == nil)
    }

    @Test func addressLocksAcrossAccounts() {
        let throttle = LoginThrottle(perAccount: .init(failures: 100, window: 60), perAddress: .init(failures: 2, window: 30))
        throttle.recordFailure(account: "a", address: "1.1.1.1", now: start)
        throttle.recordFailure(account: "b", address: "1.1.1.1", now: start + 5)
        #expect(throttle.retryAfter(account: "c", address: "1.1.1.1", now: start + 10) == 20)
        #expect(throttle.retryAfter(account: "c", address: "9.9.9.9", now: start + 10) == nil)
    }

    @Test func successClearsTheAccount() {
        let throttle = LoginThrottle(perAccount: .init(failures: 2, window: 60), perAddress: .init(failures: 100, window: 60))
        throttle.recordFailure(account: "a", address: nil, now: start)
        throttle.recordSuccess(account: "a")
        throttle.recordFailure(account: "a", address: nil, now: start + 1)
        #expect(throttle.retryAfter(account: "a", address: nil, now: start + 2) == nil)
    }
}
