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
}
