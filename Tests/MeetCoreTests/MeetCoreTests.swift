import Testing
@testable import MeetCore

@Test func moduleLinks() {}
