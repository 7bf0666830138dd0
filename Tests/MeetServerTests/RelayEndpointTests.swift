import MeetServer
import Testing

/// `--relay` URLs: what is read from them, and what is refused before the server starts.
@Suite struct RelayEndpointTests {
    @Test func readsEveryPartAndDefaultsTheRest() throws {
        let full = try #require(RelayEndpoint(url: "stomp://meetupd:secret@rabbit.internal:61614/chat?heart-beat=2"))
        #expect(full.host == "rabbit.internal" && full.port == 61614)
        #expect(full.login == "meetupd" && full.passcode == "secret" && full.virtualHost == "chat")
        #expect(full.heartBeat == .seconds(2))
        let bare = try #require(RelayEndpoint(url: "stomp://127.0.0.1"))
        #expect(bare.port == 61613 && bare.login == "guest" && bare.virtualHost == "/" && bare.heartBeat == .seconds(10))
    }

    @Test(arguments: [
        "http://127.0.0.1:61613/", "stomp://:61613/", "stomp://host:0/", "stomp://host/#x",
        "stomp://host/?heart-beat=0", "stomp://host/?heart-beat=3601", "stomp://host/?heart-beat=fast",
        "stomp://host/?other=1", "stomp://host/?heart-beat=1&heart-beat=2",
    ])
    func refusesWhatItCannotUse(url: String) {
        #expect(RelayEndpoint(url: url) == nil)
    }
}
