import Foundation

/// A mail from the maildrop as a mail client reads it: the raw message (headers as written),
/// and its plain-text and HTML parts decoded from their transfer encoding.
struct ReceivedMail: Sendable {
    /// The message as written, CRLF line ends.
    let raw: String
    /// The headers, unfolded, by lowercased name.
    let headers: [String: String]
    /// The plain-text body (the whole body of a single-part mail).
    let text: String
    /// The HTML alternative, if the mail has one.
    let html: String?

    init(raw: String) {
        self.raw = raw
        let (headers, body) = Self.split(raw)
        self.headers = headers
        let type = headers["content-type"] ?? "text/plain"
        guard type.hasPrefix("multipart/"), let boundary = Self.parameter("boundary", of: type) else {
            text = Self.decoded(body, headers: headers)
            html = nil
            return
        }
        var parts: [String: String] = [:]
        for chunk in body.components(separatedBy: "--" + boundary).dropFirst() where !chunk.hasPrefix("--") {
            let (partHeaders, partBody) = Self.split(String(chunk.drop { $0 == "\r\n" }))
            let partType = (partHeaders["content-type"] ?? "").split(separator: ";").first.map(String.init) ?? ""
            parts[partType] = Self.decoded(partBody, headers: partHeaders)
        }
        text = parts["text/plain"] ?? ""
        html = parts["text/html"]
    }

    /// The token of an account mail whose link is for `action` (`confirm`, `reset`).
    func token(for action: String) -> String? {
        let marker = "/auth/\(action)?token="
        guard let start = text.range(of: marker)?.upperBound else { return nil }
        return String(text[start...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    /// Headers (unfolded, names lowercased) and body of a message or part.
    private static func split(_ message: String) -> ([String: String], String) {
        let pieces = message.components(separatedBy: "\r\n\r\n")
        let head = pieces[0].replacingOccurrences(of: "\r\n ", with: " ").replacingOccurrences(of: "\r\n\t", with: " ")
        var headers: [String: String] = [:]
        for line in head.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (headers, pieces.dropFirst().joined(separator: "\r\n\r\n"))
    }

    private static func parameter(_ name: String, of header: String) -> String? {
        guard let range = header.range(of: name + "=") else { return nil }
        return String(header[range.upperBound...].prefix { $0 != ";" }).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
    }

    private static func decoded(_ body: String, headers: [String: String]) -> String {
        guard headers["content-transfer-encoding"]?.lowercased() == "base64" else { return body }
        let data = Data(base64Encoded: body.filter { !$0.isWhitespace }) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
