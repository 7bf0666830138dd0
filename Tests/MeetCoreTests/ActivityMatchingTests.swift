import Testing
@testable import MeetCore

@Suite struct ActivityMatchingTests {
    let hiking = Activity(id: "hiking", nameEn: "Hiking", nameUk: "Похід", proposedBy: nil, createdAt: .distantPast)
    let skiing = Activity(
        id: "cross-country-skiing", nameEn: "Cross-country skiing", nameUk: "Бігові лижі", proposedBy: nil, createdAt: .distantPast)

    @Test func keysFoldCaseAccentsApostrophesAndHyphens() {
        #expect(SearchKey("  Trail-Running ") == SearchKey("trail running"))
        #expect(SearchKey("Кавʼярня") == SearchKey("кав'ярня"))
        #expect(SearchKey("Café") == SearchKey("cafe"))
        #expect(SearchKey("Board games").compact == SearchKey("boardgames").compact)
    }

    @Test func ranksExactThenPrefixThenWordThenTypo() {
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hiking")) == ActivityMatching.exact)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hik")) == ActivityMatching.namePrefix)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("пох")) == ActivityMatching.namePrefix)
        #expect(ActivityMatching.rank(of: skiing, for: SearchKey("ski")) == ActivityMatching.wordPrefix)
        #expect(ActivityMatching.rank(of: skiing, for: SearchKey("country sk")) == ActivityMatching.wordPrefix)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hikng")) == ActivityMatching.typo + 1)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hkiing")) == ActivityMatching.typo + 1)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("пхід")) == ActivityMatching.typo + 1)
    }

    @Test func farOrShortQueriesDoNotMatch() {
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("swim")) == nil)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hx")) == nil)
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hak")) == nil, "no typos in three letters")
        #expect(ActivityMatching.rank(of: hiking, for: SearchKey("hokey")) == nil)
    }

    @Test func nearDuplicatesAllowMoreTyposInLongerNames() {
        #expect(ActivityMatching.isNearDuplicate(SearchKey("Hikng"), of: SearchKey("Hiking")))
        #expect(ActivityMatching.isNearDuplicate(SearchKey("boardgames"), of: SearchKey("Board games")))
        #expect(ActivityMatching.isNearDuplicate(SearchKey("Photografy"), of: SearchKey("Photography")))
        #expect(!ActivityMatching.isNearDuplicate(SearchKey("Yoga"), of: SearchKey("Toga")))
        #expect(!ActivityMatching.isNearDuplicate(SearchKey("Hiking"), of: SearchKey("Biking tours")))
    }

    @Test func editDistanceCountsSwapsAsOneEdit() {
        #expect(editDistance(Array("hiking".unicodeScalars), Array("hiking".unicodeScalars)) == 0)
        #expect(editDistance(Array("hkiing".unicodeScalars), Array("hiking".unicodeScalars)) == 1)
        #expect(editDistance(Array("".unicodeScalars), Array("abc".unicodeScalars)) == 3)
        #expect(editDistance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)) == 3)
        #expect(prefixEditDistance(Array("hikng".unicodeScalars), Array("hiking".unicodeScalars)) == 1)
    }
}

@Suite struct ActivityCatalogTests {
    @Test func hasAtLeast150ActivitiesNamedInBothLanguages() throws {
        let entries = try ActivityCatalog.entries()
        #expect(entries.count >= 150)
        #expect(entries.allSatisfy { !$0.english.isEmpty && !$0.ukrainian.isEmpty })
    }

    /// Otherwise a proposal of one catalog name could be taken for another.
    @Test func noTwoEntriesAreNearDuplicates() throws {
        let keys = try ActivityCatalog.entries().flatMap { entry in
            [(entry.id, SearchKey(entry.english)), (entry.id, SearchKey(entry.ukrainian))]
        }
        for (index, (id, key)) in keys.enumerated() {
            for (otherId, other) in keys[(index + 1)...] where otherId != id {
                #expect(!ActivityMatching.isNearDuplicate(key, of: other), "\(id) ~ \(otherId): \(key.text) / \(other.text)")
            }
        }
    }

    @Test func refusesMalformedLines() {
        #expect(throws: ActivityCatalog.CatalogError.self) {
            try ActivityCatalog.parse("id\ten\tuk\nhiking\tHiking\n")
        }
        #expect(throws: ActivityCatalog.CatalogError.self) {
            try ActivityCatalog.parse("id\ten\tuk\nhiking\tHiking\tПохід\nhiking\tHike\tПохід\n")
        }
    }
}
