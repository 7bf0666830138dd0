import Testing
@testable import MeetCore

@Suite struct GazetteerKeyTests {
    @Test(arguments: [
        ("Kyïv", "kyiv"), ("  KYIV ", "kyiv"), ("Ivano-Frankivsk", "ivano frankivsk"), ("St. Petersburg", "st petersburg"),
        ("Vinnyts'ka", "vinnytska"), ("Київ", "киів"), ("КИЇВ", "киів"), ("Москва́", "москва"), ("ΣΟΦΟΣ", "σοφοσ"),
        ("Straße", "straße"), ("東京", "東京"), ("", ""),
    ])
    func folds(text: String, key: String) {
        #expect(GazetteerKey.fold(text) == key)
    }
}
