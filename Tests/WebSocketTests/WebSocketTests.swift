import Testing
@testable import WebSocket

@Test func moduleLinks() {}
