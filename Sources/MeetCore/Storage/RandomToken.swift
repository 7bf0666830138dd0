#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Crypto
import Foundation
import Synchronization

/// Random identifiers and secrets, base64url-encoded without padding.
public enum RandomToken {
    /// An opaque 128-bit id for a stored row (users, meetings, ...): unguessable, URL-safe,
    /// and never starting with "-", which a command line (`meetupd admin users show ID`) would
    /// take for an option: one id in 64 did.
    public static func id() -> String {
        var id = make(byteCount: 16)
        while id.hasPrefix("-") { id = make(byteCount: 16) }
        return id
    }

    /// A 128-bit id like ``id()`` whose first 48 bits are `time` in milliseconds and the other
    /// 80 random: still unguessable, but rows written together get neighbouring ids, so an
    /// index on them takes a commit's new ids in one page or two rather than one page each (a
    /// durable chat commit wrote the id index's pages to the log once per message). Never
    /// starts with "-": the time's top bits are zero for thousands of years.
    public static func id(at time: Date) -> String {
        let milliseconds = UInt64(max(0, time.timeIntervalSince1970 * 1000))
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { bytes in
            for position in 0..<6 { bytes[position] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - position))) }
            randomBytes.withLock { $0.take(into: UnsafeMutableRawBufferPointer(rebasing: bytes[6...])) }
            return UnsafeRawBufferPointer(bytes).base64URLEncoded
        }
    }

    /// A 256-bit secret for bearer, confirmation and reset tokens.
    public static func secret() -> String {
        make(byteCount: 32)
    }

    /// Whether `text` could be an id a client was handed (1 to 64 base64url characters):
    /// what a reference to a stored row (a photo) must look like before it is looked up,
    /// so that nothing else (a path, markup) is ever stored in its place.
    public static func isWellFormedId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// The SHA-256 of a secret: the only form in which secrets are stored.
    public static func hash(_ secret: String) -> Data {
        Data(SHA256.hash(data: Data(secret.utf8)))
    }

    static func make(byteCount: Int) -> String {
        withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 1) { bytes in
            randomBytes.withLock { $0.take(into: bytes) }
            return UnsafeRawBufferPointer(bytes).base64URLEncoded
        }
    }

    /// Random bytes from the kernel's CSPRNG, fetched 4 KiB at a time and each handed out
    /// once: a `getrandom` per id (two, through `SymmetricKey`) was 1.3 % of a feed request,
    /// whose first page names its cursor with a new id (issue 21), and 2.7 % of a durable chat
    /// post's CPU before its ids were drawn a commit at a time.
    private static let randomBytes = Mutex(RandomBytes())

    private struct RandomBytes: ~Copyable {
        private var buffer = [UInt8](repeating: 0, count: 4096)
        private var used = 4096

        mutating func take(into destination: UnsafeMutableRawBufferPointer) {
            precondition(destination.count <= buffer.count, "more random bytes than a fetch")
            buffer.withUnsafeMutableBytes { buffer in
                if used + destination.count > buffer.count {
                    // arc4random_buf is getrandom's CSPRNG on Linux (glibc ≥ 2.36), as on Darwin.
                    arc4random_buf(buffer.baseAddress!, buffer.count)
                    used = 0
                }
                let taken = UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + destination.count])
                destination.copyMemory(from: UnsafeRawBufferPointer(taken))
                // Handed out: not kept here too (a secret is a bearer token).
                taken.initializeMemory(as: UInt8.self, repeating: 0)
            }
            used += destination.count
        }
    }
}

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

extension Data {
    /// RFC 4648 §5 base64url without padding, written straight from the bytes: Foundation's
    /// base64 and three `replacingOccurrences` passes over it were 2 % of a feed request's
    /// CPU (each first page names its cursor with a new `RandomToken.id()`).
    var base64URLEncoded: String {
        withUnsafeBytes { $0.base64URLEncoded }
    }
}

extension UnsafeRawBufferPointer {
    /// As ``Foundation/Data/base64URLEncoded``, without a `Data` to hold the bytes.
    var base64URLEncoded: String {
        String(unsafeUninitializedCapacity: (count * 4 + 2) / 3) { output in
            let alphabet = Self.base64URLAlphabet
            var written = 0
            /// Writes the sextets of `group` (24 bits) from the top, `count` of them.
            func write(_ group: UInt32, _ count: Int) {
                for shift in stride(from: 18, to: 18 - 6 * count, by: -6) {
                    output[written] = alphabet[Int(group >> UInt32(shift) & 63)]
                    written += 1
                }
            }
            var position = 0
            while position + 3 <= count {
                write(UInt32(self[position]) << 16 | UInt32(self[position + 1]) << 8 | UInt32(self[position + 2]), 4)
                position += 3
            }
            switch count - position {
            case 1: write(UInt32(self[position]) << 16, 2)
            case 2: write(UInt32(self[position]) << 16 | UInt32(self[position + 1]) << 8, 3)
            default: break
            }
            return written
        }
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
