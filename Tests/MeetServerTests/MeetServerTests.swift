import Testing
@testable import MeetServer

@Test func moduleLinks() {}
