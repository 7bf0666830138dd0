import Foundation
import Testing
@testable import MeetCore

@Suite struct CurrencyTests {
    /// Amounts built from their digits are the ones dividing by a power of ten gave: equal,
    /// written alike, encoded alike.
    @Test(arguments: ["JPY", "EUR", "KWD", "CLF"])
    func amountsFromMinorUnitsAreTheQuotients(_ code: String) throws {
        let currency = try #require(Currency(code: code))
        var minors: [Int64] = [0, 1, 5, 9, 10, 11, 99, 100, 101, 120, 1_000, 1_200, 12_345, 100_000, 999_999_999_999_999, -1, -1_200]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { minors.append(Int64.random(in: 0..<1_000_000_000, using: &generator) * [1, 10, 100, 1000].randomElement(using: &generator)!) }
        let encoder = JSONEncoder()
        for minor in minors {
            let quotient = Decimal(minor) / pow(10, currency.minorDigits)
            let amount = currency.amount(minor: minor)
            #expect(amount == quotient, "\(minor) \(code)")
            #expect(amount.description == quotient.description, "\(minor) \(code)")
            #expect(try encoder.encode([amount]) == encoder.encode([quotient]), "\(minor) \(code)")
            #expect(currency.minor(amount) == minor, "\(minor) \(code)")
        }
    }
}
