import Testing
@testable import Stomp

@Test func moduleLinks() {}
