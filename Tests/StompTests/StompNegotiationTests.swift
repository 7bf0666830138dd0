import Testing
@testable import Stomp

@Suite struct StompNegotiationTests {
    @Test func heartBeatsFollowTheSpecFormula() {
        let server = StompHeartBeat(send: 1_000, receive: 1_000)
        // The client can send every 5 s and wants ours every 200 ms.
        let (send, expect) = server.negotiated(with: StompHeartBeat(send: 5_000, receive: 200))
        #expect(send == .milliseconds(1_000))
        #expect(expect == .milliseconds(5_000))
        let (none, nothing) = server.negotiated(with: StompHeartBeat(send: 0, receive: 0))
        #expect(none == nil && nothing == nil)
        #expect(StompHeartBeat(send: 0, receive: 0).negotiated(with: StompHeartBeat(send: 10, receive: 10)) == (nil, nil))
    }

    @Test(arguments: ["", "1", "a,b", "-1,0", "1,2,3"])
    func malformedHeartBeatsAreRefused(header: String) {
        #expect(throws: StompProtocolError.invalidHeartBeat(header)) { try StompHeartBeat(header: header) }
    }

    @Test func versionNegotiation() {
        #expect(StompVersion.negotiate(acceptVersion: nil) == .v1_0)
        #expect(StompVersion.negotiate(acceptVersion: "1.1, 1.0") == .v1_1)
        #expect(StompVersion.negotiate(acceptVersion: "1.2,1.1") == .v1_2)
        #expect(StompVersion.negotiate(acceptVersion: "2.0") == nil)
        #expect(StompVersion.allCases.reversed().map(\.webSocketSubprotocol) == ["v12.stomp", "v11.stomp", "v10.stomp"])
    }

    @Test func bearerTokenPrecedence() {
        #expect(StompCredentials(headers: ["Authorization": "Bearer a", "passcode": "b"], transportToken: "c").bearerToken == "a")
        #expect(StompCredentials(headers: ["authorization": "bearer a"]).bearerToken == "a")
        #expect(StompCredentials(headers: ["passcode": "b"], transportToken: "c").bearerToken == "b")
        #expect(StompCredentials(headers: ["Authorization": "Basic x"], transportToken: "c").bearerToken == "c")
        #expect(StompCredentials(headers: [:]).bearerToken == nil)
    }
}
