import Foundation
import Testing
@testable import MeetCore

@Suite struct LocalizerTests {
    let localizer: Localizer

    init() throws {
        localizer = try Localizer.bundled()
    }

    @Test(arguments: [
        ("1", "1 поле профілю потребує виправлення."),
        ("2", "2 поля профілю потребують виправлення."),
        ("5", "5 полів профілю потребують виправлення."),
        ("11", "11 полів профілю потребують виправлення."),
        ("21", "21 поле профілю потребує виправлення."),
        ("22", "22 поля профілю потребують виправлення."),
        ("25", "25 полів профілю потребують виправлення."),
        ("111", "111 полів профілю потребують виправлення."),
        ("1.5", "1.5 поля профілю потребують виправлення."),
    ])
    func ukrainianPluralForms(count: String, expected: String) {
        #expect(localizer.localized("profile.invalid.detail", language: "uk", arguments: ["count": count]) == expected)
    }

    @Test(arguments: [
        ("1", "1 field in the profile needs fixing."),
        ("2", "2 fields in the profile need fixing."),
        ("0", "0 fields in the profile need fixing."),
        ("1.0", "1.0 fields in the profile need fixing."),
    ])
    func englishPluralForms(count: String, expected: String) {
        #expect(localizer.localized("profile.invalid.detail", language: "en", arguments: ["count": count]) == expected)
    }

    @Test func ukrainianRuleFollowsCLDR() {
        let expected: [String: PluralCategory] = [
            "0": .many, "1": .one, "2": .few, "4": .few, "5": .many, "11": .many, "12": .many,
            "14": .many, "21": .one, "22": .few, "25": .many, "101": .one, "111": .many,
            "112": .many, "1.5": .other, "2.0": .other, "-3": .few,
            "1000000000000000000000000001": .one,
        ]
        for (number, category) in expected {
            #expect(PluralOperands(number).map(PluralRule.eastSlavic.category) == category, "\(number)")
        }
        #expect(PluralOperands("two") == nil)
        #expect(PluralOperands("1.") == nil)
    }

    @Test(arguments: [
        ("uk-UA,uk;q=0.9,en;q=0.8", "uk"),
        ("en;q=0.5, uk;q=0.8", "uk"),
        ("fr;q=1, uk;q=0.1", "uk"),
        ("UK", "uk"),
        ("en-GB", "en"),
        ("fr, de", "en"),
        ("uk;q=0", "en"),
        ("uk;q=banana, en;q=0.2", "en"),
        ("*", "en"),
        ("", "en"),
    ])
    func picksTheLanguageFromAcceptLanguage(header: String, expected: String) {
        #expect(localizer.language(acceptLanguage: header) == expected)
    }

    @Test func noHeaderMeansEnglish() {
        #expect(localizer.language(acceptLanguage: nil) == "en")
    }

    @Test func bundledTablesHaveTheSameKeysInEveryLanguage() throws {
        let english = try #require(localizer.tables["en"])
        let ukrainian = try #require(localizer.tables["uk"])
        #expect(Set(english.strings.keys) == Set(ukrainian.strings.keys))
        #expect(Set(english.plurals.keys) == Set(ukrainian.plurals.keys))
        for (key, format) in ukrainian.plurals {
            for (name, forms) in format.variables {
                #expect(forms[.one] != nil && forms[.few] != nil && forms[.many] != nil, "\(key).\(name)")
            }
        }
    }

    @Test func plainStringsTakeNamedArguments() {
        let detail = localizer.localized("activity.invalid.detail", language: "uk", arguments: ["min": "2", "max": "40"])
        #expect(detail?.hasPrefix("Назва заняття має містити від 2 до 40 символів") == true)
    }

    @Test func aCountedTextWithoutItsCountFallsBackToThePlainOne() {
        #expect(localizer.localized("field.tooLong.detail", language: "en", arguments: ["maximum": "1"]) == "At most 1 character.")
        #expect(localizer.localized("field.tooLong.detail", language: "en") == "This text is too long.")
        #expect(localizer.localized("field.tooMany.detail", language: "uk") == "У цьому списку забагато елементів.")
    }

    @Test func unknownKeyIsNil() {
        #expect(localizer.localized("no.such.key", language: "uk") == nil)
    }
}

/// Formats read from tables written by the test, for what the shipped tables do not show.
@Suite struct LocalizedFormatTests {
    func makeLocalizer(english: String, ukrainian: String, plurals: String = "") throws -> Localizer {
        let folder = try TemporaryFolder("meetupd-strings-")  // read whole by Localizer(directory:)
        let directory = folder.url
        for (language, strings) in [("en", english), ("uk", ukrainian)] {
            let lproj = directory.appendingPathComponent("\(language).lproj")
            try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
            if strings.isEmpty { continue }
            try strings.write(to: lproj.appendingPathComponent("Localizable.strings"), atomically: true, encoding: .utf8)
        }
        if !plurals.isEmpty {
            try plurals.write(
                to: directory.appendingPathComponent("en.lproj/Localizable.stringsdict"), atomically: true, encoding: .utf8)
        }
        return try Localizer(directory: directory)
    }

    @Test func missingKeyFallsBackToEnglish() throws {
        let localizer = try makeLocalizer(english: #""only.en" = "Hello";"#, ukrainian: #""other" = "Інше";"#)
        #expect(localizer.localized("only.en", language: "uk") == "Hello")
        #expect(localizer.localized("other", language: "uk") == "Інше")
    }

    @Test func percentSignsAndMissingArgumentsStayVisible() throws {
        let localizer = try makeLocalizer(english: #""k" = "100%% of %#@who@, %d";"#, ukrainian: "")
        #expect(localizer.localized("k", language: "en") == "100% of %#@who@, %d")
        #expect(localizer.localized("k", language: "en", arguments: ["who": "us"]) == "100% of us, %d")
    }

    @Test func zeroFormAndNestedVariables() throws {
        let plurals = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>files</key><dict>
                <key>NSStringLocalizedFormatKey</key><string>%#@files@</string>
                <key>files</key><dict>
                  <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                  <key>NSStringFormatValueTypeKey</key><string>ld</string>
                  <key>zero</key><string>No files</string>
                  <key>one</key><string>One file in %#@folders@</string>
                  <key>other</key><string>%ld files in %#@folders@</string>
                </dict>
                <key>folders</key><dict>
                  <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                  <key>NSStringFormatValueTypeKey</key><string>d</string>
                  <key>one</key><string>a folder</string>
                  <key>other</key><string>%d folders</string>
                </dict>
              </dict>
            </dict></plist>
            """
        let localizer = try makeLocalizer(english: "", ukrainian: "", plurals: plurals)
        #expect(localizer.localized("files", language: "en", arguments: ["files": "0", "folders": "1"]) == "No files")
        #expect(localizer.localized("files", language: "en", arguments: ["files": "1", "folders": "1"]) == "One file in a folder")
        #expect(localizer.localized("files", language: "en", arguments: ["files": "7", "folders": "3"]) == "7 files in 3 folders")
    }

    @Test func keysThatOnlyLookAlikeAreNotRepeats() throws {
        let strings = """
            /* "a" = "old";
               "a" = "older"; */
            // "b" = "old";
            "a" = "a \\"b\\" = c; \\"b\\"";
            "b" = "b";
            "say \\"hi\\"" = "hi";
            "say \\"bye\\"" = "bye";
            """
        let localizer = try makeLocalizer(english: strings, ukrainian: "")
        #expect(localizer.localized("say \"bye\"", language: "en") == "bye")
        #expect(localizer.localized("a", language: "en") == "a \"b\" = c; \"b\"")
    }

    @Test func brokenTablesAreRefusedWithTheirFile() throws {
        #expect(throws: Localizer.LoadError.self) {
            try makeLocalizer(english: #""unterminated" = "#, ukrainian: "")
        }
        for repeated in ["\"a\" = \"one\";\n  \"a\" = \"two\";\n", "\"a\" = \"one\"; \"a\" = \"two\";",
                         "\"a\" = \"one\";\r\n\"a\" = \"two\";\r\n", "\"say \\\"hi\\\"\" = \"1\";\n\"say \\\"hi\\\"\" = \"2\";"] {
            #expect(throws: Localizer.LoadError.self, "\(repeated)") { try makeLocalizer(english: repeated, ukrainian: "") }
        }
        let plurals = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>k</key><dict>
              <key>NSStringLocalizedFormatKey</key><string>%#@n@</string>
              <key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string></dict>
            </dict></dict></plist>
            """
        #expect(throws: Localizer.LoadError.self) {
            try makeLocalizer(english: "", ukrainian: "", plurals: plurals)
        }
    }
}
