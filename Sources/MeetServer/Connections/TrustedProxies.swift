import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The reverse proxies whose `X-Forwarded-For` and `Forwarded` headers are believed
/// (`--trusted-proxies`). Empty by default: then the client address is always the TCP peer's,
/// since anyone can send those headers.
public struct TrustedProxies: Sendable, Equatable {
    /// One address or network, as its bytes (4 or 16) and the prefix length that must match.
    struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                guard mine & mask == theirs & mask else { return false }
                remaining -= 8
            }
            return true
        }
    }

    let networks: [Network]

    /// None: forwarding headers are never believed.
    public init() {
        networks = []
    }

    /// Parses a comma-separated list of addresses and CIDR networks (`127.0.0.1, 10.0.0.0/8,
    /// ::1, fd00::/8`); `nil` when an entry is neither.
    public init?(_ list: String) {
        var networks: [Network] = []
        for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { return nil }
            var prefixLength = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...prefixLength).contains(length) else { return nil }
                prefixLength = length
            }
            networks.append(Network(bytes: bytes, prefixLength: prefixLength))
        }
        self.networks = networks
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` (an IP address in text) is one of the trusted proxies.
    public func contains(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client a request comes from: the TCP peer, unless the peer is a trusted proxy; then
    /// the nearest address in the forwarding chain (`X-Forwarded-For`, else `Forwarded: for=`)
    /// that is not itself a trusted proxy, read from the right, where the proxies appended.
    public func clientAddress(peer: String?, forwardedFor: [String], forwarded: [String]) -> String? {
        guard let peer, contains(peer) else { return peer }
        var chain = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if chain.isEmpty { chain = forwarded.flatMap(Self.forElements) }
        var client = peer
        for hop in chain.reversed() {
            guard Self.bytes(of: hop) != nil else { break }  // unreadable: trust nothing further left
            client = hop
            guard contains(hop) else { break }
        }
        return client
    }

    /// The `for=` addresses of `Forwarded` header values (RFC 7239), without quotes, brackets or ports.
    private static func forElements(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0].lowercased() == "for" else { continue }
                var node = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if node.hasPrefix("["), let end = node.firstIndex(of: "]") {
                    node = String(node[node.index(after: node.startIndex)..<end])
                } else if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") {
                    node = String(node[..<colon])
                }
                return node
            }
            return nil
        }
    }

    /// The bytes of an IPv4 or IPv6 address in text, or `nil`.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
