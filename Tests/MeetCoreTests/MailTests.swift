import Foundation
import Testing
@testable import MeetCore

@Suite("Maildrop")
struct MailTests {
    @Test func rendersRFC5322WithEncodedSubject() {
        let mail = Mail(to: "olena@example.org", subject: "Підтвердіть адресу", body: "Привіт!\nДякуємо.")
        let text = MaildropMailer.render(mail, from: "meetupd <no-reply@meetupd.local>", date: Date(timeIntervalSince1970: 0), messageID: "<x@meetupd.local>")
        let (head, body) = try! #require(text.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init).pairs)
        #expect(head.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"))
        #expect(head.contains("Subject: =?UTF-8?B?"))
        #expect(head.allSatisfy { $0.isASCII })
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(body == "Привіт!\r\nДякуємо.\r\n")
    }

    @Test func writesOneFilePerMail() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("maildrop-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mailer = MaildropMailer(directory: directory, now: Date.init)
        try await mailer.send(Mail(to: "a@example.org", subject: "One", body: "1"))
        try await mailer.send(Mail(to: "b@example.org", subject: "Two", body: "2"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.count == 2)
        #expect(names.allSatisfy { $0.hasSuffix(".eml") })
    }

    @Test(arguments: [
        ("a@example.org", true), ("a.b+c@mail.example.org", true), ("o'neil@x-y.example.org", true), ("a@b", false),
        ("@example.org", false), ("a b@example.org", false), ("a@@example.org", false), ("a@example..org", false),
        ("a@example.org,b@example.org", false), ("a@example.org\0", false), ("a\r\nBcc: b@x.org@example.org", false),
        ("\"a b\"@example.org", false), ("Ann <a@example.org>", false), ("a@[127.0.0.1]", false), ("a@-x.org", false),
        ("a.@example.org", false), ("a@example.123", false), ("ännä@example.org", false),
    ])
    func strictAddresses(address: String, valid: Bool) {
        #expect(EmailAddress.isValid(address) == valid)
    }
}

private extension Array {
    var pairs: (Element, Element)? { count == 2 ? (self[0], self[1]) : nil }
}
