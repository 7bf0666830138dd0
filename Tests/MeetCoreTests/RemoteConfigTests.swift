import Foundation
import Testing
@testable import MeetCore

@Suite("Remote configuration: versions, rules, rollouts")
struct RemoteConfigTests {
    func document(_ json: String) throws -> ConfigDocument {
        try ConfigDocument(json: Data(json.utf8))
    }

    func client(_ platform: ConfigClient.Platform? = nil, _ version: String? = nil, locale: String? = nil, user: String? = nil) -> ConfigClient {
        ConfigClient(platform: platform, appVersion: version.flatMap { AppVersion($0) }, locale: locale, userId: user)
    }

    @Test func versionsAndRanges() throws {
        #expect(AppVersion("1.4")! == AppVersion("1.4.0")!)
        #expect(AppVersion("1.10.0")! > AppVersion("1.9.9")!)
        #expect(AppVersion("2.0.0-beta.1+77")!.description == "2.0.0")
        for bad in ["", "1.", "a.b", "1.2.3.4", "1..2", "-1"] { #expect(AppVersion(bad) == nil, "\(bad)") }
        let range = try #require(AppVersionRange(">=1.4.0 <2.0"))
        #expect(range.contains(AppVersion("1.4")!) && range.contains(AppVersion("1.99.3")!))
        #expect(!range.contains(AppVersion("1.3.9")!) && !range.contains(AppVersion("2.0")!))
        #expect(try #require(AppVersionRange("1.3.1")).contains(AppVersion("1.3.1")!))
        for bad in ["", ">=", "1.4 or newer", "=>1.4", ">=1.4.0-beta", "1 2 3 4 5"] { #expect(AppVersionRange(bad) == nil, "\(bad)") }
    }

    @Test func theFirstRuleThatHoldsGivesTheValue() throws {
        let config = try document("""
            {"keys": {"limit": {"value": 1, "rules": [
                {"when": {"platform": "ios", "appVersion": ">=2"}, "value": 2},
                {"when": {"locale": ["uk"]}, "value": 3},
                {"when": {"country": ["PL"]}, "value": 4}]}}}
            """)
        let value = { (client: ConfigClient) in config.values(for: client)["limit"] }
        #expect(value(client(.ios, "2.1", locale: "uk")) == .number(2))
        #expect(value(client(.ios, "1.9", locale: "uk-UA")) == .number(3))
        #expect(value(client(.android, "3.0", locale: "pl-PL")) == .number(4))
        #expect(value(client(.ios, nil)) == .number(1))  // no version: version rules do not hold
        #expect(value(client()) == .number(1))
    }

    @Test func aRolloutTakesItsShareOfUsersAndKeepsThem() throws {
        let config = try document("""
            {"keys": {"new": {"value": false, "rules": [{"when": {"rollout": {"experiment": "new-feed", "to": 30}}, "value": true}]}}}
            """)
        // Fixed ids: the bucket is a hash, so the share is the same on every run; random ids
        // made it a draw that fell outside ± 1.5 points about once in a few thousand runs.
        let users = (0..<10_000).map { "user-\($0)" }
        let chosen = users.filter { config.values(for: client(user: $0))["new"] == .bool(true) }
        #expect(abs(Double(chosen.count) / 100 - 30) < 1.5, "\(chosen.count) of 10,000")
        #expect(chosen == users.filter { config.values(for: client(user: $0))["new"] == .bool(true) })
        #expect(config.values(for: client())["new"] == .bool(false))  // anonymous
    }

    @Test func slicesOfOneExperimentSplitUsersIntoGroups() throws {
        let config = try document("""
            {"keys": {"ab": {"value": "none", "rules": [
                {"when": {"rollout": {"experiment": "ab", "to": 50}}, "value": "a"},
                {"when": {"rollout": {"experiment": "ab", "from": 50, "to": 100}}, "value": "b"}]}}}
            """)
        let groups = Dictionary(grouping: (0..<2_000).map { "u\($0)" }) { config.values(for: client(user: $0))["ab"]?.string ?? "none" }
        #expect(Set(groups.keys) == ["a", "b"])
        #expect(abs((groups["a"]?.count ?? 0) - 1_000) < 100)
        // Another experiment's buckets are independent of this one's.
        let other = (0..<2_000).filter { ConfigCondition.bucket(of: "u\($0)", in: "other") < 50 }
        let same = other.filter { ConfigCondition.bucket(of: "u\($0)", in: "ab") < 50 }
        #expect(abs(same.count - other.count / 2) < 100)
    }

    @Test func everyProblemIsNamedByItsPath() {
        let json = """
            {"keys": {"home": {"value": {"type": "Stack", "parameters": {"axis": "diagonal",
                "children": [{"type": "Label"}, {"type": "x-custom", "parameters": {"any": 1}}]}},
                "rules": [{"when": {"appVersion": "soon", "rollout": {"experiment": "e", "from": 60, "to": 20}}, "value": 1}]},
              "Bad Key": {"value": 1}}, "extra": true}
            """
        let error = #expect(throws: MeetError.self) { try document(json) }
        #expect(error?.code == "config.invalid")
        let problems = Set((error?.fieldProblems ?? []).map { "\($0.field) \($0.code)" })
        #expect(problems == [
            "extra config.unknownField",
            "keys.Bad Key config.invalidKey",
            "keys.home.value.parameters.axis field.invalid",
            "keys.home.value.parameters.children.0.parameters.text field.required",
            "keys.home.rules.0.when.appVersion config.invalidVersionRange",
            "keys.home.rules.0.when.rollout.to config.emptyRollout",
        ])
    }

    @Test func storesActivatesAndRollsBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("meetupd-config-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = RemoteConfigService(database: try AppDatabase(dataDirectory: directory.path), now: Date.init)
        let one = try await service.push(Data(#"{"keys": {"a": {"value": 1}}}"#.utf8), comment: nil, by: "test")
        let two = try await service.push(Data(#"{"keys": {"a": {"value": 2}, "b": {"value": true}}}"#.utf8), comment: "b", by: "test")
        await #expect(throws: MeetError.self) { try await service.push(Data(#"{"keys": 1}"#.utf8), comment: nil, by: "test") }
        #expect(try await service.versions().map(\.id) == [two.id, one.id])
        _ = try await service.activate(one.id, by: "test")
        _ = try await service.activate(two.id, by: "test")
        #expect(try await service.version(nil).id == two.id)
        #expect(try await service.diff(one.id, two.id).map { "\($0.kind) \($0.key)" } == ["changed a", "added b"])
        #expect(try await service.rollback(by: "test")?.id == one.id)
        #expect(try await service.rollback(by: "test") == nil)
        await #expect(throws: MeetError.self) { try await service.rollback(by: "test") }
        await #expect(throws: MeetError.self) { try await service.version(nil) }
    }
}
