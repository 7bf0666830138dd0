import Foundation
import Synchronization
import Testing
@testable import MeetCore

@Suite struct RandomTokenTests {
    /// One base64url id in 64 used to start with "-": 10,000 of them would all but surely have
    /// shown one.
    @Test func idsAreWellFormedAndNeverLookLikeAnOption() {
        let ids = (0..<10_000).map { _ in RandomToken.id() }
        #expect(ids.allSatisfy { !$0.hasPrefix("-") && RandomToken.isWellFormedId($0) && $0.count == 22 })
        #expect(Set(ids).count == ids.count)
    }

    /// Ids and secrets share one buffer of random bytes, refilled from the kernel: taken from
    /// many threads at once, through many refills, none repeats.
    @Test func idsAndSecretsFromManyThreadsNeverRepeat() {
        let taken = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let mine = (0..<2_000).map { n in n % 2 == thread % 2 ? RandomToken.id() : RandomToken.secret() }
            taken.withLock { $0 += mine }
        }
        let all = taken.withLock { $0 }
        #expect(all.count == 16_000 && Set(all).count == all.count)
        #expect(all.allSatisfy { RandomToken.isWellFormedId($0) && [22, 43].contains($0.count) })
    }

    /// Ids made at one time are as well formed and distinct as random ones, and share their
    /// time prefix (what keeps an index on them local); another millisecond changes it.
    @Test func timedIdsShareTheirTimeAndStayUnique() {
        let time = Date(timeIntervalSince1970: 1_800_000_000.123)
        let ids = (0..<10_000).map { _ in RandomToken.id(at: time) }
        #expect(ids.allSatisfy { !$0.hasPrefix("-") && RandomToken.isWellFormedId($0) && $0.count == 22 })
        #expect(Set(ids).count == ids.count)
        // 48 bits of time are the first 8 characters.
        #expect(Set(ids.map { $0.prefix(8) }).count == 1)
        #expect(RandomToken.id(at: time.addingTimeInterval(0.001)).prefix(8) != ids[0].prefix(8))
    }

    /// The encoder writes what Foundation's base64, made URL-safe and unpadded, says: every
    /// length modulo 3, every byte value.
    @Test func base64URLIsFoundationsBase64MadeURLSafe() {
        func viaFoundation(_ data: Data) -> String {
            data.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        for length in 0...64 {
            let data = Data((0..<length).map { _ in UInt8.random(in: .min ... .max) })
            #expect(data.base64URLEncoded == viaFoundation(data))
        }
        let everyByte = Data((0...255).map(UInt8.init))
        #expect(everyByte.base64URLEncoded == viaFoundation(everyByte))
    }
}
