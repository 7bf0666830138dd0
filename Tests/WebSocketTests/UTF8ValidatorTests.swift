import Testing
@_spi(Tooling) @testable import WebSocket

@Suite struct UTF8ValidatorTests {
    func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return bytes.withUnsafeBytes { validator.validate($0) } && validator.isComplete
    }

    @Test(arguments: [
        "", "hello, world", "κόσμε", "Привіт", "日本語のテキスト", "🎉🚀", "a\u{0}b", "\u{10FFFF}", "\u{FFFD}",
        String(repeating: "ascii run longer than eight bytes ", count: 10) + "é",
    ])
    func acceptsValidText(text: String) {
        #expect(self.isValid(Array(text.utf8)))
    }

    @Test(arguments: [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
        [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
        [0xFE], [0xFF], [0xCE, 0xBA, 0xE1], [0xE1, 0x80], [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xFF],
    ] as [[UInt8]])
    func refusesInvalidSequences(bytes: [UInt8]) {
        #expect(!self.isValid(bytes))
    }

    @Test func everySplitOfValidTextStaysValid() {
        let bytes = Array("κόσμε 🎉 ascii 日本".utf8)
        for cut in 0...bytes.count {
            var validator = UTF8Validator()
            let first = bytes[..<cut].withUnsafeBytes { validator.validate($0) }
            let second = bytes[cut...].withUnsafeBytes { validator.validate($0) }
            #expect(first && second && validator.isComplete)
        }
    }

    @Test func failsAtTheFirstImpossibleByte() {
        // 0xED 0xA0 starts a surrogate: refused before the third byte arrives.
        var validator = UTF8Validator()
        #expect(([0x61, 0xED] as [UInt8]).withUnsafeBytes { validator.validate($0) })
        #expect(!([0xA0] as [UInt8]).withUnsafeBytes { validator.validate($0) })
    }
}
