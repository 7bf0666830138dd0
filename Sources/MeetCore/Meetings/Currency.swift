import Foundation

/// An ISO 4217 currency and the number of digits of its minor unit (cents), which decides
/// how precisely a price in it can be written.
struct Currency: Sendable, Equatable {
    let code: String
    let minorDigits: Int

    /// The currency with that alphabetic code (case-insensitive), `nil` if ISO 4217 has none.
    init?(code: String) {
        let upper = code.uppercased()
        guard upper.count == 3, let digits = Currency.minorDigits[upper] else { return nil }
        self.code = upper
        self.minorDigits = digits
    }

    /// `amount` in minor units, `nil` when it has more decimals than the currency allows.
    func minor(_ amount: Decimal) -> Int64? {
        var scaled = amount * pow(10, minorDigits)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        guard rounded == scaled, rounded.magnitude < 1e15 else { return nil }
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    /// The amount `minor` minor units stand for.
    func amount(minor: Int64) -> Decimal {
        // Built from its digits, not divided by a power of ten: the division cost 2 % of a feed
        // request (issue 21). Trailing zeros go as the division's result had none, so that
        // the value and its text (JSON) stay the same (CurrencyTests).
        var (significand, exponent) = (minor.magnitude, -minorDigits)
        while exponent < 0, significand != 0, significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        return Decimal(sign: minor < 0 ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
    }

    /// Circulating currencies (ISO 4217 list one, without funds and precious metals).
    private static let minorDigits: [String: Int] = {
        var table: [String: Int] = [:]
        let two = """
            AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD \
            CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD \
            GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD \
            MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP \
            PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS \
            TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES XCD XCG YER ZAR ZMW ZWG
            """
        let zero = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
        let three = "BHD IQD JOD KWD LYD OMR TND"
        let four = "CLF UYW"
        for (list, digits) in [(zero, 0), (two, 2), (three, 3), (four, 4)] {
            for code in list.split(separator: " ") { table[String(code)] = digits }
        }
        return table
    }()
}
