import Testing
@testable import MeetCore

@Suite struct SearchKeyTests {
    @Test(arguments: [
        ("Kyïv", "kyiv"), ("  KYIV ", "kyiv"), ("Ivano-Frankivsk", "ivano frankivsk"), ("St. Petersburg", "st petersburg"),
        ("Vinnyts'ka", "vinnytska"), ("Київ", "киів"), ("КИЇВ", "киів"), ("Москва́", "москва"), ("ΣΟΦΟΣ", "σοφοσ"),
        ("Straße", "straße"), ("東京", "東京"), ("", ""),
    ])
    func folds(text: String, key: String) {
        #expect(SearchKey.fold(text) == key)
    }

    @Test(arguments: [("kiyv", "kyiv", 1), ("kyiv", "kyiv", 0), ("kiev", "kyiv", 2), ("lviv", "lvov", 1), ("ab", "", 2)])
    func measuresEditDistance(a: String, b: String, distance: Int) {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        #expect(SearchKey.editDistance(a, b, limit: 2) == distance)
        #expect(SearchKey.editDistance(b, a, limit: 2) == distance)
        if distance > 0 {
            #expect(SearchKey.editDistance(a, b, limit: distance - 1) == nil)
        }
    }
}
