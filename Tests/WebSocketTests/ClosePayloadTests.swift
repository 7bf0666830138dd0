import NIOCore
import Testing
@_spi(Tooling) @testable import WebSocket

@Suite struct ClosePayloadTests {
    static let validCodes: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]
    static let invalidCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

    @Test(arguments: validCodes)
    func validCodesAreAccepted(code: UInt16) throws {
        var payload = ByteBuffer()
        payload.writeInteger(code)
        payload.writeString("ok")
        let closed = try WebSocketClosePayload.parse(payload)
        #expect(closed == WebSocketClosed(code: WebSocketCloseCode(rawValue: code), reason: "ok"))
    }

    @Test(arguments: invalidCodes)
    func invalidCodesAreProtocolErrors(code: UInt16) {
        var payload = ByteBuffer()
        payload.writeInteger(code)
        #expect(throws: WebSocketProtocolError.self) { try WebSocketClosePayload.parse(payload) }
        #expect(!WebSocketCloseCode(rawValue: code).isValidOnTheWire)
    }

    @Test func emptyPayloadMeansNoStatus() throws {
        #expect(try WebSocketClosePayload.parse(ByteBuffer()).code == .noStatusReceived)
    }

    @Test func oneBytePayloadAndNonUTF8ReasonAreProtocolErrors() {
        #expect(throws: WebSocketProtocolError.protocolError("close payload of one byte")) {
            try WebSocketClosePayload.parse(ByteBuffer(bytes: [0x03]))
        }
        #expect(throws: WebSocketProtocolError.self) {
            try WebSocketClosePayload.parse(ByteBuffer(bytes: [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD]))
        }
    }

    @Test func longReasonsAreCutAtACharacterBoundary() throws {
        let reason = String(repeating: "é", count: 100)  // 200 bytes
        let payload = WebSocketClosePayload.make(code: .goingAway, reason: reason)
        #expect(payload.readableBytes <= 125)
        let parsed = try WebSocketClosePayload.parse(payload)
        #expect(parsed.code == .goingAway)
        #expect(parsed.reason == String(repeating: "é", count: 61))
    }
}
