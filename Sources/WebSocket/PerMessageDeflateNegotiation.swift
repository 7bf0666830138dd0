/// The permessage-deflate parameters both sides agreed on in the opening handshake.
struct PerMessageDeflateParameters: Sendable, Hashable {
    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    var serverMaxWindowBits = 15
    /// The window the client promised (or was told) to stay within.
    var clientMaxWindowBits = 15
    /// Whether the response carries `client_max_window_bits` (only allowed when offered).
    var announcesClientMaxWindowBits = false
    /// Whether the response carries `server_max_window_bits`.
    var announcesServerMaxWindowBits = false

    /// The `Sec-WebSocket-Extensions` value of the server's response.
    var responseValue: String {
        var value = "permessage-deflate"
        if self.serverNoContextTakeover { value += "; server_no_context_takeover" }
        if self.clientNoContextTakeover { value += "; client_no_context_takeover" }
        if self.announcesServerMaxWindowBits { value += "; server_max_window_bits=\(self.serverMaxWindowBits)" }
        if self.announcesClientMaxWindowBits { value += "; client_max_window_bits=\(self.clientMaxWindowBits)" }
        return value
    }
}

/// Picks the first acceptable permessage-deflate offer of a `Sec-WebSocket-Extensions` header.
enum PerMessageDeflateNegotiation {
    /// Returns the agreed parameters, or `nil` when the client offered nothing acceptable
    /// (then the connection simply runs uncompressed).
    static func negotiate(
        offers headerValues: [String],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        for offer in headerValues.flatMap({ $0.split(separator: ",") }) {
            var parts = offer.split(separator: ";").map { $0.trimmingSpaces() }
            guard !parts.isEmpty, parts.removeFirst().lowercased() == "permessage-deflate" else { continue }
            if let accepted = self.accept(parameters: parts, configuration: configuration) {
                return accepted
            }
        }
        return nil
    }

    /// Accepts one offer, or declines it (RFC 7692 §7.1) when a parameter is unknown,
    /// repeated or out of range, or asks for something zlib cannot do.
    private static func accept(
        parameters: [Substring],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        var result = PerMessageDeflateParameters()
        result.serverNoContextTakeover = configuration.serverNoContextTakeover
        result.clientNoContextTakeover = configuration.clientNoContextTakeover
        result.serverMaxWindowBits = configuration.serverMaxWindowBits
        result.announcesServerMaxWindowBits = configuration.serverMaxWindowBits < 15
        var seen = Set<String>()
        for parameter in parameters {
            let pieces = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            let name = pieces[0].lowercased()
            let value = pieces.count == 2 ? String(pieces[1]).unquoted : nil
            guard seen.insert(name).inserted else { return nil }
            switch (name, value) {
            case ("server_no_context_takeover", nil):
                result.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                result.clientNoContextTakeover = true
            case ("server_max_window_bits", let value?):
                guard let bits = Self.windowBits(value), bits >= 9 else { return nil }
                result.serverMaxWindowBits = min(bits, configuration.serverMaxWindowBits)
                result.announcesServerMaxWindowBits = true
            case ("client_max_window_bits", let value):
                let offered: Int
                if let value {
                    guard let bits = Self.windowBits(value) else { return nil }
                    offered = bits
                } else {
                    offered = 15
                }
                result.clientMaxWindowBits = min(offered, configuration.clientMaxWindowBits)
                result.announcesClientMaxWindowBits = result.clientMaxWindowBits < 15 || value != nil
            default:
                return nil
            }
        }
        return result
    }

    /// A window size parameter: 1*DIGIT in 8...15, no leading zero.
    private static func windowBits(_ text: String) -> Int? {
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            !text.hasPrefix("0"), let bits = Int(text), (8...15).contains(bits)
        else { return nil }
        return bits
    }
}

extension Substring {
    /// The text without surrounding spaces and tabs (HTTP's OWS).
    func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = self.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = self.lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}

extension String {
    /// The text inside a quoted-string, or the text itself if it is a plain token.
    var unquoted: String {
        guard self.count >= 2, self.hasPrefix("\""), self.hasSuffix("\"") else { return self }
        return String(self.dropFirst().dropLast())
    }
}
