import Foundation
import Testing
@testable import MeetCore

@Suite("Passwords")
struct PasswordTests {
    @Test func hashVerifiesOnlyTheSamePassword() async throws {
        let hasher = PasswordHasher(parameters: .init(logRounds: 4))
        let encoded = try await hasher.hash("correct horse battery")
        #expect(encoded.hasPrefix("$scrypt$ln=4,r=8,p=1$"))
        #expect(try await hasher.verify("correct horse battery", against: encoded))
        #expect(try await !hasher.verify("correct horse batterY", against: encoded))
    }

    @Test func saltsDiffer() async throws {
        let hasher = PasswordHasher(parameters: .init(logRounds: 4))
        #expect(try await hasher.hash("same") != hasher.hash("same"))
    }

    @Test func storedParametersWinOverCurrentOnes() async throws {
        let old = try await PasswordHasher(parameters: .init(logRounds: 4)).hash("secret words")
        let current = PasswordHasher(parameters: .init(logRounds: 5))
        #expect(try await current.verify("secret words", against: old))
        #expect(current.needsRehash(old))
        #expect(!PasswordHasher(parameters: .init(logRounds: 4)).needsRehash(old))
    }

    @Test(arguments: ["", "plain", "$scrypt$ln=99,r=8,p=1$AAAA$AAAA", "$scrypt$ln=4,r=8$AAAA$AAAA", "$bcrypt$x$y$z"])
    func malformedHashesNeverMatch(encoded: String) async throws {
        #expect(try await !PasswordHasher(parameters: .init(logRounds: 4)).verify("", against: encoded))
    }

    @Test func placeholderHashHasTheCurrentCostAndMatchesNothing() async throws {
        let hasher = PasswordHasher(parameters: .init(logRounds: 4))
        #expect(PasswordHasher.decode(hasher.placeholderHash)?.parameters == hasher.parameters)
        #expect(try await !hasher.verify("", against: hasher.placeholderHash))
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEquals(Data([1, 2, 3]), Data([1, 2, 3])))
        #expect(!constantTimeEquals(Data([1, 2, 3]), Data([1, 2, 4])))
        #expect(!constantTimeEquals(Data([1, 2]), Data([1, 2, 3])))
    }

    @Test func policy() {
        #expect(PasswordPolicy.problem(with: "seven77", field: "p")?.code == "password.tooShort")
        #expect(PasswordPolicy.problem(with: "Password1", field: "p")?.code == "password.common")
        #expect(PasswordPolicy.problem(with: String(repeating: "x", count: 257), field: "p")?.code == "password.tooLong")
        #expect(PasswordPolicy.problem(with: "correct horse battery", field: "p") == nil)
        #expect(PasswordPolicy.common.allSatisfy { $0.count >= PasswordPolicy.minimumLength && $0 == $0.lowercased() })
    }
}
