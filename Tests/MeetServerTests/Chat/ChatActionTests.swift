import Testing
@testable import MeetServer

/// ``ChatAction`` reads an ASCII destination byte by byte; it must name the same action as
/// reading it by characters, for good destinations and odd ones alike.
@Suite struct ChatActionTests {
    static let destinations = [
        "/app/meetings.m1.chat", "/meetings.m1.chat", "/app/meetings.AbC-_9.read", "/meetings.x.edit",
        "/meetings.x.delete", "/meetings.x.typing", "/meetings.x.location", "/meetings.x.chat.more",
        "/meetings..chat", "/meetings.x.", "/meetings.x", "/meetings.", "/meetings", "", "/app/", "/app",
        "/app/app/meetings.x.chat", "/topic/meetings.x.chat", "/app/meetings.x.Chat", "/meetings.x.chat ",
        "/meetings.x\r\n.chat", "/meetings.\r\nx.chat", "/meetings.x.chat\r\n", "\r\n/meetings.x.chat",
        "/meetings.é.chat", "/meetings.x.\u{301}chat", "/meetings.\u{301}x.chat", "/meetings.x\u{301}.chat",
        "/app/meetings.m.chat\u{0}", "/meetings.ｍ.chat", "/meetings.x.cha", "/meetings.x.chats", "/meetings.x.locatio",
        "/meetings.x.read.", "/app/direct.x", "/app/presence",
    ]

    @Test(arguments: destinations)
    func readsTheSameActionAsByCharacters(_ destination: String) {
        #expect(ChatAction(appDestination: destination) == ChatAction(characters: destination))
    }

    @Test func namesTheMeetingAndTheKind() {
        #expect(ChatAction(appDestination: "/app/meetings.m1.chat") == ChatAction(meetingId: "m1", kind: .chat))
        #expect(ChatAction(appDestination: "/meetings.m1.typing") == ChatAction(meetingId: "m1", kind: .typing))
        #expect(ChatAction(appDestination: "/meetings.m1.chat.x") == nil)
        #expect(ChatAction(appDestination: "/meetings.x\u{301}.chat")?.meetingId == "x\u{301}")
    }
}
