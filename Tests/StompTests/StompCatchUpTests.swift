import NIOCore
import Synchronization
import Testing
@testable import Stomp

/// A subscription that catches up from pages, then goes live. A message can be committed (so a
/// page reads it) and published only after the subscription went live: its publication must
/// not deliver it a second time. Driven step by step, not by timing.
@Suite(.timeLimit(.minutes(1))) struct StompCatchUpTests {
    /// `/topic/log` has entries 1 and 2 stored; `since-seq` asks for those after it.
    struct LogApplication: StompApplication {
        func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }

        func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
            guard destination == "/topic/log", let since = headers["since-seq"].flatMap({ Int64($0) }) else { return nil }
            return StompCatchUp(positionHeader: "seq", after: since) { after in
                guard after <= 2 else { throw StompRefusal(code: "request.invalidFields", message: "since-seq: beyond the log") }
                return (1...2).filter { $0 > after }.map { seq in
                    StompCatchUp.Message(headers: ["seq": String(seq)], body: ByteBuffer(string: "entry \(seq)"), position: Int64(seq))
                }
            }
        }
    }

    /// `/topic/long` has 512 entries of 16 KiB stored: 8 MiB, more than the loopback sockets
    /// and the slow-consumer limit (1 MiB) hold together.
    struct LongLogApplication: StompApplication {
        static let entries: Int64 = 512

        func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }

        func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
            guard destination == "/topic/long", let since = headers["since-seq"].flatMap({ Int64($0) }) else { return nil }
            return StompCatchUp(positionHeader: "seq", after: since) { after in
                guard after < Self.entries else { return [] }
                return ((after + 1)...min(after + 100, Self.entries)).map { seq in
                    StompCatchUp.Message(headers: ["seq": String(seq)], body: ByteBuffer(repeating: UInt8(ascii: "x"), count: 16 << 10),
                                         position: seq)
                }
            }
        }
    }

    /// A phone back from a long absence on a slow link: the replay waits for it to read rather
    /// than dropping it as a slow consumer, which it would be again on every try.
    @Test func aLongCatchUpGoesAtThePaceTheSubscriberReads() async throws {
        let (_, server, phone) = try await Self.stalledPhone(serving: LongLogApplication())
        try await phone.write("SUBSCRIBE\nid:long\ndestination:/topic/long\nsince-seq:0\nreceipt:caught-up\n\n\0")
        // Time for the server to write all it would: without waiting for the reader, it passed
        // the limit and closed the session with an ERROR.
        let received = try await Self.readAfterAPause(phone, until: "receipt-id:caught-up")
        #expect(!received.contains("ERROR"))
        #expect(received.utf8.count(where: { $0 == 0 }) == Int(LongLogApplication.entries) + 1)  // the MESSAGEs and the RECEIPT
        #expect(received.contains("seq:\(LongLogApplication.entries)\n"))
        try await server.close()
    }

    /// `/topic/gated` has one entry stored, whose page is read only once the gate opens (or
    /// then fails, if `refusesPage`).
    struct GatedLogApplication: StompApplication {
        let gate: Gate
        var refusesPage = false

        final class Gate: Sendable {
            let isOpen = Atomic<Bool>(false)
            let pageFailed = Atomic<Bool>(false)
        }

        func receive(_ message: StompApplicationMessage, broker: StompBroker, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }

        func catchUp(destination: String, headers: StompHeaders, principal: StompPrincipal) throws -> StompCatchUp? {
            guard destination == "/topic/gated", let since = headers["since-seq"].flatMap({ Int64($0) }) else { return nil }
            return StompCatchUp(positionHeader: "seq", after: since) { [gate, refusesPage] after in
                while !gate.isOpen.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(10)) }
                if refusesPage {
                    gate.pageFailed.store(true, ordering: .relaxed)
                    throw StompRefusal(code: "request.invalidFields", message: "since-seq: field.outOfRange")
                }
                return after < 1 ? [StompCatchUp.Message(headers: ["seq": "1"], body: ByteBuffer(string: "entry 1"), position: 1)] : []
            }
        }
    }

    /// A busy room goes on while a phone catches up: the live messages held meanwhile (here
    /// 8 MiB, published while its one page is read) are released at the reader's pace too,
    /// not all at once past the outbound limit while the phone is not reading.
    @Test func theLiveMessagesHeldDuringACatchUpFollowAtTheReadersPace() async throws {
        let gate = GatedLogApplication.Gate()
        let (broker, server, phone) = try await Self.stalledPhone(serving: GatedLogApplication(gate: gate))
        let live = 512
        try await Self.catchUp(phone, holding: live, from: broker, behind: gate)
        // The RECEIPT follows the last held message.
        let received = try await Self.readAfterAPause(phone, until: "receipt-id:caught-up")
        #expect(!received.contains("ERROR"))
        #expect(received.utf8.count(where: { $0 == 0 }) == 1 + live + 1)  // the page, the held ones, the RECEIPT
        try await server.close()
    }

    /// A catch-up that falls too far behind its live room (its page still being read while more
    /// than ``StompCatchUp/maximumHeld`` messages come) ends the session, which is told why.
    @Test func aCatchUpHoldingTooManyLiveMessagesEndsTheSession() async throws {
        let gate = GatedLogApplication.Gate()
        let (broker, server, phone) = try await Self.phone(serving: GatedLogApplication(gate: gate))
        try await phone.write("SUBSCRIBE\nid:gated\ndestination:/topic/gated\nsince-seq:0\nreceipt:caught-up\n\n\0")
        let deadline = ContinuousClock.now + BrokerFixture.patience
        while broker.subscriberCount(of: "/topic/gated") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        for seq in 2...(StompCatchUp.maximumHeld + 2) {
            broker.publish(to: "/topic/gated", headers: ["seq": String(seq)], body: ByteBuffer(string: "live"))
        }
        let received = try await phone.readUntilClosed()
        #expect(received.contains("message:slow consumer\\c more than 10000 live messages held back while catching up\n"))
        #expect(!received.contains("MESSAGE\n") && !received.contains("receipt-id:caught-up"))
        gate.isOpen.store(true, ordering: .relaxed)
        try await server.close()
    }

    /// A session that fails while the release of its held messages waits for the reader (here
    /// on a frame it cannot decode) ends there: the ERROR follows what was written before, and
    /// neither the rest of the held messages nor the catch-up's RECEIPT is written ahead of it.
    @Test func aSessionThatFailsWhileItsHeldMessagesWaitForTheReaderWritesNoMoreOfThem() async throws {
        let gate = GatedLogApplication.Gate()
        // Long enough for the phone to read everything written before the session closes.
        var configuration = StompBroker.Configuration()
        configuration.closeGracePeriod = .seconds(60)
        let (broker, server, phone) = try await Self.stalledPhone(serving: GatedLogApplication(gate: gate), configuration: configuration)
        let live = 512
        try await Self.catchUp(phone, holding: live, from: broker, behind: gate)
        // Time for the page and the held messages to fill what the stalled phone takes.
        try await Task.sleep(for: .seconds(1))
        try await phone.write("BOGUS\n\n\0")
        try await Task.sleep(for: .milliseconds(200))
        try await phone.channel.setOption(.autoRead, value: true).get()
        let received = try await phone.readUntilClosed()
        let frames = received.components(separatedBy: "\0").map { $0.trimmingPrefix(while: \.isNewline) }.filter { !$0.isEmpty }
        #expect(frames.last?.hasPrefix("ERROR\n") == true)
        let caughtUp = received.contains("receipt-id:caught-up")  // apart: a failure would print the megabytes
        #expect(!caughtUp)
        #expect(frames.count(where: { $0.hasPrefix("MESSAGE\n") }) < 1 + live)
        try await server.close()
    }

    /// A subscription the server ends while it catches up (its user left the room) is told so
    /// on the errors queue, and that is its SUBSCRIBE's only answer: a RECEIPT after it would
    /// say the subscription caught up and is live.
    @Test func aCatchUpEndedByTheServerGetsNoReceipt() async throws {
        let (broker, server, phone) = try await Self.stalledPhone(serving: LongLogApplication())
        try await phone.write("SUBSCRIBE\nid:errors\ndestination:/user/queue/errors\n\n\0"
                              + "SUBSCRIBE\nid:long\ndestination:/topic/long\nsince-seq:0\nreceipt:caught-up\n\n\0")
        // Time for the catch-up to fill what the stalled phone takes and wait for it.
        try await Task.sleep(for: .seconds(1))
        broker.endSubscriptions(ofUser: "alice", to: "/topic/long", refusal: StompRefusal(code: "room.left", message: "you left the room"))
        var received = try await Self.readAfterAPause(phone, until: #""subscription":"long"}"#)
        // The catch-up reads its next page once the phone has taken the rest: time for it to end.
        try await Task.sleep(for: .milliseconds(300))
        try await phone.write("DISCONNECT\nreceipt:bye\n\n\0")
        received += try await phone.readUntilClosed()
        // Asked apart, so that a failure does not print the megabytes.
        let (refused, bye, caughtUp) = (received.contains("code:room.left"), received.contains("receipt-id:bye"),
                                        received.contains("receipt-id:caught-up"))
        #expect(refused && bye)
        #expect(!caughtUp)
        try await server.close()
    }

    /// The session's other frames do not wait for a long catch-up: a second SUBSCRIBE sent
    /// right after it is answered while the first one's pages still wait for the reader, and
    /// the first one's RECEIPT still comes once it has caught up.
    @Test func aLongCatchUpDoesNotHoldTheSessionsOtherFrames() async throws {
        let (_, server, phone) = try await Self.stalledPhone(serving: LongLogApplication())
        try await phone.write("SUBSCRIBE\nid:long\ndestination:/topic/long\nsince-seq:0\nreceipt:caught-up\n\n\0"
                              + "SUBSCRIBE\nid:other\ndestination:/topic/other\nreceipt:other\n\n\0")
        let received = try await Self.readAfterAPause(phone, until: "receipt-id:caught-up")
        let other = try #require(received.range(of: "receipt-id:other"))
        let caughtUp = try #require(received.range(of: "receipt-id:caught-up"))
        #expect(other.lowerBound < caughtUp.lowerBound)
        #expect(received.utf8.count(where: { $0 == 0 }) == Int(LongLogApplication.entries) + 2)
        try await server.close()
    }

    /// Since frames go on during a catch-up, the subscription can be replaced meanwhile (the
    /// same id again): the first catch-up must stop, not feed the new one its pages.
    @Test func aCatchUpEndsWhenItsSubscriptionIsReplaced() async throws {
        let (_, server, phone) = try await Self.stalledPhone(serving: LongLogApplication())
        try await phone.write("SUBSCRIBE\nid:long\ndestination:/topic/long\nsince-seq:0\nreceipt:first\n\n\0"
                              + "UNSUBSCRIBE\nid:long\nreceipt:gone\n\n\0"
                              + "SUBSCRIBE\nid:long\ndestination:/topic/long\nsince-seq:500\nreceipt:again\n\n\0")
        let received = try await Self.readAfterAPause(phone, until: "receipt-id:again", "receipt-id:first")
        // Everything after the UNSUBSCRIBE's receipt, the two RECEIPTs aside, is the new catch-up.
        let after = try #require(received.range(of: "receipt-id:gone")).upperBound
        let seqs = received[after...].components(separatedBy: "\0").compactMap { frame in
            frame.split(separator: "\n").first { $0.hasPrefix("seq:") }.map { String($0.dropFirst(4)) }
        }
        #expect(seqs == (501...512).map(String.init))
        try await server.close()
    }

    /// The same when the replaced catch-up's page then fails: it ends quietly, and the refusal
    /// does not end the new subscription (the same id), which hears the live messages.
    @Test func aReplacedCatchUpsFailedPageLeavesTheNewSubscription() async throws {
        let gate = GatedLogApplication.Gate()
        let (broker, server, alice) = try await Self.aliceOnTheLog(serving: GatedLogApplication(gate: gate, refusesPage: true))
        _ = try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "errors", "destination": "/user/queue/errors"]))
        try await alice.send(StompFrame(.subscribe, headers: ["id": "gated", "destination": "/topic/gated", "since-seq": "0"]))
        try await alice.send(StompFrame(.unsubscribe, headers: ["id": "gated"]))
        _ = try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "gated", "destination": "/topic/gated"]))
        gate.isOpen.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + BrokerFixture.patience
        while !gate.pageFailed.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        // The failure reaches the session's event loop right after the page's task ends.
        try await Task.sleep(for: .milliseconds(200))
        broker.publish(to: "/topic/gated", headers: ["seq": "2"], body: ByteBuffer(string: "live"))
        let next = try #require(try await alice.next())
        #expect(next.text == "live" && next.headers["subscription"] == "gated")
        await alice.close()
        try await server.close()
    }

    /// A SUBSCRIBE answered without a catch-up (here refused, after an asynchronous check) is
    /// answered before the frames after it run: a DISCONNECT sent with it must not close the
    /// session before the refusal is written.
    @Test func aSubscribeAnsweredWithoutACatchUpIsAnsweredBeforeTheNextFrame() async throws {
        let fixture = try await BrokerFixture.start()
        let phone = try await RawConnection.open(port: fixture.port)
        try await phone.write("CONNECT\naccept-version:1.2\npasscode:token-alice\n\n\0"
                              + "SUBSCRIBE\nid:errors\ndestination:/user/queue/errors\nreceipt:e\n\n\0")
        _ = try await phone.read { $0.contains("receipt-id:e") }
        try await phone.write("SUBSCRIBE\nid:no\ndestination:/topic/forbidden\nreceipt:refused\n\n\0"
                              + "DISCONNECT\nreceipt:bye\n\n\0")
        let received = try await phone.readUntilClosed()
        let refused = try #require(received.range(of: "receipt-id:refused"))
        let bye = try #require(received.range(of: "receipt-id:bye"))
        #expect(refused.lowerBound < bye.lowerBound)
        await fixture.stop()
    }

    /// A broker serving `application` on a loopback port, and a phone connected to it over a
    /// bare socket that has stopped reading (a slow link).
    static func stalledPhone(serving application: some StompApplication, configuration: StompBroker.Configuration = .init())
        async throws -> (StompBroker, any Channel, RawConnection) {
        let (broker, server, phone) = try await phone(serving: application, configuration: configuration)
        try await phone.channel.setOption(.autoRead, value: false).get()
        return (broker, server, phone)
    }

    /// A broker serving `application` on a loopback port, and a phone connected to it over a
    /// bare socket.
    static func phone(serving application: some StompApplication, configuration: StompBroker.Configuration = .init())
        async throws -> (StompBroker, any Channel, RawConnection) {
        let broker = StompBroker(configuration: configuration, authenticator: TokenAuthenticator(), authorizer: ForbiddenWordAuthorizer(),
                                 application: application)
        let server = try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker)
        let phone = try await RawConnection.open(port: server.localAddress!.port!)
        try await phone.write("CONNECT\naccept-version:1.2\npasscode:token-alice\n\n\0")
        _ = try await phone.read { $0.contains("CONNECTED") }
        return (broker, server, phone)
    }

    /// Subscribes the stalled `phone` to `/topic/gated` from the start (its RECEIPT `caught-up`),
    /// publishes `live` messages of 16 KiB while its page waits for `gate`, then opens the gate.
    static func catchUp(_ phone: RawConnection, holding live: Int, from broker: StompBroker,
                        behind gate: GatedLogApplication.Gate) async throws {
        try await phone.write("SUBSCRIBE\nid:gated\ndestination:/topic/gated\nsince-seq:0\nreceipt:caught-up\n\n\0")
        let deadline = ContinuousClock.now + BrokerFixture.patience
        while broker.subscriberCount(of: "/topic/gated") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        for seq in 2...(live + 1) {
            broker.publish(to: "/topic/gated", headers: ["seq": String(seq)], body: ByteBuffer(repeating: UInt8(ascii: "y"), count: 16 << 10))
        }
        gate.isOpen.store(true, ordering: .relaxed)
    }

    /// Leaves the server a second to write all it would to the stalled `phone`, then reads until
    /// one of `endings` (a RECEIPT's `receipt-id:…`, a refusal's body) ends what came (or the
    /// connection closes). Only the end
    /// is looked at while megabytes come in.
    static func readAfterAPause(_ phone: RawConnection, until endings: String...) async throws -> String {
        try await Task.sleep(for: .seconds(1))
        try await phone.channel.setOption(.autoRead, value: true).get()
        return try await phone.read { received in
            let tail = String(decoding: received.utf8.suffix(64), as: UTF8.self)
            return endings.contains { tail.contains($0) }
        }
    }

    /// A broker serving `application` (``LogApplication`` unless given) on a loopback port, and
    /// alice connected to it.
    static func aliceOnTheLog(serving application: any StompApplication = LogApplication()) async throws -> (StompBroker, any Channel, StompClient) {
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: ForbiddenWordAuthorizer(), application: application)
        let server = try await StompTCPServer.bind(host: "127.0.0.1", port: 0, broker: broker)
        let alice = try await StompClient.connect(
            host: "127.0.0.1", port: server.localAddress!.port!, headers: ["accept-version": "1.2", "host": "localhost", "passcode": "token-alice"],
            timeout: BrokerFixture.patience)
        return (broker, server, alice)
    }

    @Test func anEntryAPageDeliveredIsNotDeliveredAgainWhenItsPublicationComesLate() async throws {
        let (broker, server, alice) = try await Self.aliceOnTheLog()
        // The RECEIPT comes once the pages are out and the subscription is live.
        let pages = try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "log", "destination": "/topic/log", "since-seq": "0"]))
        #expect(pages.map(\.text) == ["entry 1", "entry 2"])
        // Entry 2's publication, late, then a new entry 3.
        broker.publish(to: "/topic/log", headers: ["seq": "2"], body: ByteBuffer(string: "entry 2, published late"))
        broker.publish(to: "/topic/log", headers: ["seq": "3"], body: ByteBuffer(string: "entry 3"))
        #expect(try await alice.next()?.text == "entry 3")
        // Once a newer entry is out, positions are no longer checked.
        broker.publish(to: "/topic/log", body: ByteBuffer(string: "no seq"))
        #expect(try await alice.next()?.text == "no seq")
        await alice.close()
        try await server.close()
    }

    /// A page that fails ends its subscription: left in place, it would hold every live message
    /// back for good, and its id could not be used again.
    @Test func aRefusedPageEndsItsSubscription() async throws {
        let (broker, server, alice) = try await Self.aliceOnTheLog()
        try await alice.send(StompFrame(.subscribe, headers: ["id": "errors", "destination": "/user/queue/errors"]))
        try await alice.send(StompFrame(.subscribe, headers: ["id": "log", "destination": "/topic/log", "since-seq": "9", "receipt": "r"]))
        let refusal = try #require(try await alice.next())
        #expect(refusal.headers["code"] == "request.invalidFields" && refusal.headers["receipt-id"] == "r")
        #expect(refusal.text.hasSuffix(#","destination":"/topic/log","subscription":"log"}"#))
        broker.publish(to: "/topic/log", headers: ["seq": "10"], body: ByteBuffer(string: "unheard"))
        let pages = try await alice.sendAwaitingReceipt(StompFrame(.subscribe, headers: ["id": "log", "destination": "/topic/log", "since-seq": "1"]))
        #expect(pages.map(\.text) == ["entry 2"])
        await alice.close()
        try await server.close()
    }
}
