import Foundation
import Testing
@testable import MeetCore

@Suite("Maildrop")
struct MailTests {
    @Test func rendersRFC5322WithEncodedSubject() {
        let mail = Mail(to: "olena@example.org", subject: "Підтвердіть адресу", body: "Привіт!\nДякуємо.")
        let text = MaildropMailer.render(mail, from: "meetupd <no-reply@meetupd.local>", date: Date(timeIntervalSince1970: 0), messageId: "<x@meetupd.local>")
        let (head, body) = try! #require(text.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init).pairs)
        #expect(head.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"))
        #expect(head.contains("Subject: =?UTF-8?B?"))
        #expect(head.allSatisfy { $0.isASCII })
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(body == "Привіт!\r\nДякуємо.\r\n")
    }

    @Test func aMailWithHTMLIsMultipartAlternativeInBase64() throws {
        let html = "<p>" + String(repeating: "Привіт, світе! ", count: 80) + "</p>"
        let mail = Mail(to: "olena@example.org", subject: "Запрошення", body: "Привіт!\nДякуємо.", html: html)
        let text = MaildropMailer.render(mail, from: "meetupd <no-reply@meetupd.local>", date: Date(timeIntervalSince1970: 0), messageId: "<x@meetupd.local>")
        let lines = text.components(separatedBy: "\r\n")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(lines.allSatisfy { $0.utf8.count <= 78 && $0.allSatisfy(\.isASCII) })
        let boundary = try #require(lines.first { $0.hasPrefix(" boundary=") }?
            .split(separator: "\"").dropFirst().first.map(String.init))
        let parts = text.components(separatedBy: "--" + boundary)
        // Preamble, text, HTML, and the closing "--".
        #expect(parts.count == 4 && parts[3] == "--\r\n")
        func decoded(_ part: String) throws -> (type: String, content: String) {
            let pieces = part.components(separatedBy: "\r\n\r\n")
            #expect(pieces[0].contains("Content-Transfer-Encoding: base64"))
            let data = try #require(Data(base64Encoded: pieces[1].replacingOccurrences(of: "\r\n", with: "")))
            return (pieces[0], String(decoding: data, as: UTF8.self))
        }
        let plain = try decoded(parts[1]), rich = try decoded(parts[2])
        #expect(plain.type.contains("Content-Type: text/plain; charset=utf-8") && plain.content == "Привіт!\r\nДякуємо.\r\n")
        #expect(rich.type.contains("Content-Type: text/html; charset=utf-8") && rich.content == html + "\r\n")
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
