/// One request of a load: an HTTP method, a target (path and query) and extra header fields.
public struct LoadRequest: Equatable, Sendable {
    /// A header field to send with the request, such as `Authorization: Bearer ...`.
    public struct Field: Equatable, Sendable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    public var target: String
    public var fields: [Field]

    public init(method: String, target: String, fields: [Field] = []) {
        self.method = method
        self.target = target
        self.fields = fields
    }
}

/// Why a request file was refused, with the line to look at.
public struct RequestFileError: Error, Equatable, CustomStringConvertible {
    /// 1-based line number, or 0 when the problem is the file as a whole.
    public var line: Int
    public var reason: String

    public var description: String { line == 0 ? reason : "line \(line): \(reason)" }
}

/// The request file HTTPLoad takes requests from, round-robin.
///
/// One request per line, like an HTTP request line followed by header fields, the fields
/// separated by tabs (a tab never appears in a target or a field's value, so nothing needs
/// quoting):
///
///     GET /api/v1/meetings?lat=50.45&lon=30.52<TAB>Authorization: Bearer s3cr3t
///
/// Blank lines and lines starting with `#` are skipped.
public enum RequestFile {
    /// The requests in `text`, in file order; at least one.
    public static func parse(_ text: String) throws(RequestFileError) -> [LoadRequest] {
        var requests: [LoadRequest] = []
        var number = 0
        // "\r\n" is one Character in Swift, and a newline like "\n".
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.first == "#" { continue }
            requests.append(try request(line, at: number))
        }
        if requests.isEmpty { throw RequestFileError(line: 0, reason: "no requests in the file") }
        return requests
    }

    private static func request(_ line: Substring, at number: Int) throws(RequestFileError) -> LoadRequest {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
        let requestLine = parts[0].split(separator: " ")
        guard requestLine.count == 2 else {
            throw RequestFileError(line: number, reason: "expected 'METHOD /target', got '\(parts[0])'")
        }
        let method = String(requestLine[0])
        guard method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw RequestFileError(line: number, reason: "'\(method)' is not an HTTP method")
        }
        let target = String(requestLine[1])
        guard target.first == "/" else {
            throw RequestFileError(line: number, reason: "the target '\(target)' must start with '/'")
        }
        var fields: [LoadRequest.Field] = []
        for part in parts.dropFirst() {
            guard let colon = part.firstIndex(of: ":"), colon != part.startIndex,
                  part[..<colon].allSatisfy(isTokenCharacter) else {
                throw RequestFileError(line: number, reason: "expected 'Name: value', got '\(part)'")
            }
            let value = part[part.index(after: colon)...].drop { $0 == " " }
            fields.append(.init(name: String(part[..<colon]), value: String(value)))
        }
        return LoadRequest(method: method, target: target, fields: fields)
    }

    /// RFC 9110 `tchar`: what a field name may be made of.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character)
    }
}
