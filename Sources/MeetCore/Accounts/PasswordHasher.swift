import _CryptoExtras
import Crypto
import Dispatch
import Foundation

/// scrypt password hashing. Each hash carries its own salt and cost parameters
/// (`$scrypt$ln=15,r=8,p=1$<salt>$<key>`), so the cost can be raised later while old
/// hashes keep verifying.
public struct PasswordHasher: Sendable {
    /// scrypt's cost parameters: N = 2^logRounds, r = blockSize, p = parallelism.
    public struct Parameters: Sendable, Equatable {
        /// log2 of N, the CPU and memory cost; each step doubles both.
        public var logRounds: Int
        /// r, the block size; memory grows with it.
        public var blockSize: Int
        /// p, how many independent mixes are run.
        public var parallelism: Int

        /// Parameters with scrypt's usual r = 8 and p = 1 unless given.
        public init(logRounds: Int, blockSize: Int = 8, parallelism: Int = 1) {
            self.logRounds = logRounds
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per hash.
        public static let standard = Parameters(logRounds: 15)
    }

    /// The cost new hashes are made with; stored hashes carry their own.
    public var parameters: Parameters

    /// A hasher making new hashes at `parameters`.
    public init(parameters: Parameters = .standard) {
        self.parameters = parameters
    }

    static let keyLength = 32
    static let saltLength = 16
    /// Bounds the memory scrypt takes at once, whatever the number of concurrent logins.
    private static let gate = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// A new encoded hash of `password` with a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        let salt = SymmetricKey(size: .init(bitCount: Self.saltLength * 8)).withUnsafeBytes { Data($0) }
        let key = try await Self.derive(password, salt: salt, parameters: parameters)
        return "$scrypt$ln=\(parameters.logRounds),r=\(parameters.blockSize),p=\(parameters.parallelism)$"
            + salt.base64EncodedString() + "$" + key.base64EncodedString()
    }

    /// Whether `password` matches `encoded`, compared in constant time. Malformed hashes never match.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        guard let stored = Self.decode(encoded) else { return false }
        let key = try await Self.derive(password, salt: stored.salt, parameters: stored.parameters)
        return constantTimeEquals(key, stored.key)
    }

    /// A well-formed hash at the current cost that no password matches: verifying against it
    /// in place of an unknown user's makes both answers take the same time.
    public var placeholderHash: String {
        "$scrypt$ln=\(parameters.logRounds),r=\(parameters.blockSize),p=\(parameters.parallelism)$"
            + Data(count: Self.saltLength).base64EncodedString() + "$" + Data(count: Self.keyLength).base64EncodedString()
    }

    /// Whether `encoded` was made with weaker parameters than the current ones.
    public func needsRehash(_ encoded: String) -> Bool {
        Self.decode(encoded)?.parameters != parameters
    }

    private static func derive(_ password: String, salt: Data, parameters: Parameters) async throws -> Data {
        // scrypt blocks its thread for tens of milliseconds: keep it off the cooperative pool.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                gate.wait()
                defer { gate.signal() }
                continuation.resume(with: Result {
                    try KDF.Scrypt.deriveKey(
                        from: Data(password.utf8), salt: salt, outputByteCount: keyLength,
                        rounds: 1 << parameters.logRounds, blockSize: parameters.blockSize,
                        parallelism: parameters.parallelism
                    ).withUnsafeBytes { Data($0) }
                })
            }
        }
    }

    static func decode(_ encoded: String) -> (parameters: Parameters, salt: Data, key: Data)? {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt",
              let salt = Data(base64Encoded: String(parts[3])),
              let key = Data(base64Encoded: String(parts[4])), key.count == keyLength
        else { return nil }
        var values: [Substring: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let nameAndValue = pair.split(separator: "=")
            guard nameAndValue.count == 2, let value = Int(nameAndValue[1]) else { return nil }
            values[nameAndValue[0]] = value
        }
        guard let ln = values["ln"], let r = values["r"], let p = values["p"],
              (1...24).contains(ln), (1...64).contains(r), (1...16).contains(p)
        else { return nil }
        return (Parameters(logRounds: ln, blockSize: r, parallelism: p), salt, key)
    }
}

/// Compares two byte strings in time that depends only on their lengths.
func constantTimeEquals(_ a: Data, _ b: Data) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) {
        difference |= x ^ y
    }
    return difference == 0
}
