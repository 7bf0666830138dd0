import NIOCore
import Testing
@testable import Stomp

/// One golden wire form per frame type per version: the encoder must produce exactly these
/// bytes and the decoder must read them back into the same frame. The header value `a:b\c`
/// shows each version's escaping (none in 1.0 and in CONNECT/STOMP/CONNECTED).
@Suite struct StompGoldenTests {
    struct Golden: CustomTestStringConvertible, Sendable {
        let version: StompVersion
        let command: StompCommand
        let headers: [String]
        let body: String
        let wire: String
        var testDescription: String { "\(command.rawValue) \(version.rawValue)" }
    }

    static let goldens: [Golden] = {
        var goldens: [Golden] = []
        // (command, headers as "name=value", body, wire for 1.0, wire for 1.1, wire for 1.2)
        let table: [(StompCommand, [String], String, String, String, String)] = [
            (.connect, ["accept-version=1.0,1.1,1.2", "x=a:b\\c"], "",
             "CONNECT\naccept-version:1.0,1.1,1.2\nx:a:b\\c\n\n\0",
             "CONNECT\naccept-version:1.0,1.1,1.2\nx:a:b\\c\n\n\0",
             "CONNECT\naccept-version:1.0,1.1,1.2\nx:a:b\\c\n\n\0"),
            (.stomp, ["accept-version=1.2", "x=a:b\\c"], "",
             "", "STOMP\naccept-version:1.2\nx:a:b\\c\n\n\0", "STOMP\naccept-version:1.2\nx:a:b\\c\n\n\0"),
            (.connected, ["version=1.2", "x=a:b\\c"], "",
             "CONNECTED\nversion:1.2\nx:a:b\\c\n\n\0",
             "CONNECTED\nversion:1.2\nx:a:b\\c\n\n\0",
             "CONNECTED\nversion:1.2\nx:a:b\\c\n\n\0"),
            (.send, ["destination=/topic/t", "x=a:b\\c"], "hi",
             "SEND\ndestination:/topic/t\nx:a:b\\c\ncontent-length:2\n\nhi\0",
             "SEND\ndestination:/topic/t\nx:a\\cb\\\\c\ncontent-length:2\n\nhi\0",
             "SEND\ndestination:/topic/t\nx:a\\cb\\\\c\ncontent-length:2\n\nhi\0"),
            (.subscribe, ["id=0", "destination=/topic/t", "ack=client", "x=a:b\\c"], "",
             "SUBSCRIBE\nid:0\ndestination:/topic/t\nack:client\nx:a:b\\c\n\n\0",
             "SUBSCRIBE\nid:0\ndestination:/topic/t\nack:client\nx:a\\cb\\\\c\n\n\0",
             "SUBSCRIBE\nid:0\ndestination:/topic/t\nack:client\nx:a\\cb\\\\c\n\n\0"),
            (.unsubscribe, ["id=0", "x=a:b\\c"], "",
             "UNSUBSCRIBE\nid:0\nx:a:b\\c\n\n\0",
             "UNSUBSCRIBE\nid:0\nx:a\\cb\\\\c\n\n\0",
             "UNSUBSCRIBE\nid:0\nx:a\\cb\\\\c\n\n\0"),
            (.ack, ["id=7", "x=a:b\\c"], "",
             "ACK\nid:7\nx:a:b\\c\n\n\0", "ACK\nid:7\nx:a\\cb\\\\c\n\n\0", "ACK\nid:7\nx:a\\cb\\\\c\n\n\0"),
            (.nack, ["id=7", "x=a:b\\c"], "",
             "", "NACK\nid:7\nx:a\\cb\\\\c\n\n\0", "NACK\nid:7\nx:a\\cb\\\\c\n\n\0"),
            (.begin, ["transaction=t1", "x=a:b\\c"], "",
             "BEGIN\ntransaction:t1\nx:a:b\\c\n\n\0", "BEGIN\ntransaction:t1\nx:a\\cb\\\\c\n\n\0",
             "BEGIN\ntransaction:t1\nx:a\\cb\\\\c\n\n\0"),
            (.commit, ["transaction=t1", "x=a:b\\c"], "",
             "COMMIT\ntransaction:t1\nx:a:b\\c\n\n\0", "COMMIT\ntransaction:t1\nx:a\\cb\\\\c\n\n\0",
             "COMMIT\ntransaction:t1\nx:a\\cb\\\\c\n\n\0"),
            (.abort, ["transaction=t1", "x=a:b\\c"], "",
             "ABORT\ntransaction:t1\nx:a:b\\c\n\n\0", "ABORT\ntransaction:t1\nx:a\\cb\\\\c\n\n\0",
             "ABORT\ntransaction:t1\nx:a\\cb\\\\c\n\n\0"),
            (.disconnect, ["receipt=77", "x=a:b\\c"], "",
             "DISCONNECT\nreceipt:77\nx:a:b\\c\n\n\0", "DISCONNECT\nreceipt:77\nx:a\\cb\\\\c\n\n\0",
             "DISCONNECT\nreceipt:77\nx:a\\cb\\\\c\n\n\0"),
            (.message, ["subscription=0", "message-id=9", "destination=/topic/t", "x=a:b\\c"], "a\0b",
             "MESSAGE\nsubscription:0\nmessage-id:9\ndestination:/topic/t\nx:a:b\\c\ncontent-length:3\n\na\0b\0",
             "MESSAGE\nsubscription:0\nmessage-id:9\ndestination:/topic/t\nx:a\\cb\\\\c\ncontent-length:3\n\na\0b\0",
             "MESSAGE\nsubscription:0\nmessage-id:9\ndestination:/topic/t\nx:a\\cb\\\\c\ncontent-length:3\n\na\0b\0"),
            (.receipt, ["receipt-id=77", "x=a:b\\c"], "",
             "RECEIPT\nreceipt-id:77\nx:a:b\\c\n\n\0", "RECEIPT\nreceipt-id:77\nx:a\\cb\\\\c\n\n\0",
             "RECEIPT\nreceipt-id:77\nx:a\\cb\\\\c\n\n\0"),
            (.error, ["message=bad", "x=a:b\\c"], "why",
             "ERROR\nmessage:bad\nx:a:b\\c\ncontent-length:3\n\nwhy\0",
             "ERROR\nmessage:bad\nx:a\\cb\\\\c\ncontent-length:3\n\nwhy\0",
             "ERROR\nmessage:bad\nx:a\\cb\\\\c\ncontent-length:3\n\nwhy\0"),
        ]
        for (command, headers, body, v10, v11, v12) in table {
            for (version, wire) in [(StompVersion.v1_0, v10), (.v1_1, v11), (.v1_2, v12)] where !wire.isEmpty {
                goldens.append(Golden(version: version, command: command, headers: headers, body: body, wire: wire))
            }
        }
        return goldens
    }()

    static func frame(_ golden: Golden) -> StompFrame {
        var headers = StompHeaders()
        for header in golden.headers {
            let parts = header.split(separator: "=", maxSplits: 1)
            headers.add(String(parts[0]), String(parts[1]))
        }
        return StompFrame(golden.command, headers: headers, text: golden.body)
    }

    @Test(arguments: goldens)
    func encodesTheGoldenBytes(golden: Golden) {
        let encoded = StompFrameEncoder.encode(Self.frame(golden), version: golden.version)
        #expect(String(buffer: encoded) == golden.wire)
    }

    @Test(arguments: goldens)
    func decodesTheGoldenBytes(golden: Golden) throws {
        var expected = Self.frame(golden)
        if golden.command.allowsBody { expected.headers.add("content-length", String(golden.body.utf8.count)) }
        #expect(try decodeAll(golden.wire, version: golden.version) == [expected])
    }

    @Test func carriageReturnIsEscapedOnlyInStomp12() {
        let frame = StompFrame(.send, headers: ["k": "a\rb"])
        #expect(String(buffer: StompFrameEncoder.encode(frame, version: .v1_2)) == "SEND\nk:a\\rb\ncontent-length:0\n\n\0")
        #expect(String(buffer: StompFrameEncoder.encode(frame, version: .v1_1)) == "SEND\nk:a\rb\ncontent-length:0\n\n\0")
    }

    /// A header line with nothing to escape is copied in one piece: its UTF-8 bytes as they
    /// are, short or long (past what a `String` keeps inline), empty names and values included.
    @Test func plainHeaderLinesKeepTheirBytes() {
        let long = String(repeating: "ключ-", count: 40)
        let frame = StompFrame(.receipt, headers: StompHeaders([("receipt-id", "é-1"), ("x", ""), ("", "v"), ("long", long)]))
        for version in [StompVersion.v1_0, .v1_1, .v1_2] {
            #expect(String(buffer: StompFrameEncoder.encode(frame, version: version))
                == "RECEIPT\nreceipt-id:é-1\nx:\n:v\nlong:\(long)\n\n\0")
        }
    }

    @Test func fanOutEncodingSharesBytesPerSubscription() {
        let message = StompMessage(destination: "/topic/t", messageId: "5", headers: ["seq": "3"], body: ByteBuffer(string: "x"))
        var cache = StompMessageEncodingCache(message: message, allocator: ByteBufferAllocator())
        let first = cache.frame(subscription: "sub-0", acknowledged: true, version: .v1_2)
        let again = cache.frame(subscription: "sub-0", acknowledged: true, version: .v1_2)
        #expect(String(buffer: first) == "MESSAGE\nsubscription:sub-0\nmessage-id:5\ndestination:/topic/t\nack:5\nseq:3\ncontent-length:1\n\nx\0")
        first.withUnsafeReadableBytes { a in
            again.withUnsafeReadableBytes { b in #expect(a.baseAddress == b.baseAddress) }
        }
        let v11 = cache.frame(subscription: "sub-0", acknowledged: true, version: .v1_1)
        #expect(String(buffer: v11) == "MESSAGE\nsubscription:sub-0\nmessage-id:5\ndestination:/topic/t\nseq:3\ncontent-length:1\n\nx\0")
    }
}
