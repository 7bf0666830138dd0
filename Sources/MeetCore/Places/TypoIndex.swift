/// Finds the gazetteer keys that share enough character pairs (bigrams) with a query to be
/// within a few typos of it; ``SearchKey/editDistance(_:_:limit:)`` then checks them.
///
/// Pairs are hashed into 65,536 buckets laid out in two flat arrays (a counting sort), so
/// building it makes no dictionary; a collision only adds a candidate, never loses one.
struct TypoIndex: Sendable {
    private static let bucketCount = 1 << 16
    /// Marks the start and the end of a key, so that first and last letters count as pairs.
    private static let start: Unicode.Scalar = "\u{02}", end: Unicode.Scalar = "\u{03}"

    /// Where bucket `b`'s key numbers start in `keyNumbers`; one more entry than buckets.
    private let bucketStarts: [Int32]
    private let keyNumbers: [Int32]
    private let keyCount: Int

    init(names: GazetteerNames) {
        var buckets: [UInt16] = []
        var keyBucketStarts: [Int32] = [0]
        var counts = [Int32](repeating: 0, count: Self.bucketCount + 1)
        for index in 0..<names.count {
            let scalars = Array(String(decoding: names.key(index), as: UTF8.self).unicodeScalars)
            for bucket in Self.buckets(of: scalars) {
                buckets.append(bucket)
                counts[Int(bucket) + 1] += 1
            }
            keyBucketStarts.append(Int32(buckets.count))
        }
        for bucket in 0..<Self.bucketCount {
            counts[bucket + 1] += counts[bucket]
        }
        bucketStarts = counts
        var next = counts
        var keyNumbers = [Int32](repeating: 0, count: buckets.count)
        for index in 0..<names.count {
            for bucket in buckets[Int(keyBucketStarts[index])..<Int(keyBucketStarts[index + 1])] {
                keyNumbers[Int(next[Int(bucket)])] = Int32(index)
                next[Int(bucket)] += 1
            }
        }
        self.keyNumbers = keyNumbers
        keyCount = names.count
    }

    /// Keys that may be within `edits` typos of `query`: those that keep enough of its
    /// pairs, given that one edit spoils at most three (a swap of neighbours).
    func candidates(for query: [Unicode.Scalar], edits: Int) -> [Int] {
        let queryBuckets = Self.buckets(of: query)
        let minimumShared = max(1, queryBuckets.count - 3 * edits)
        var shared = [UInt8](repeating: 0, count: keyCount)
        var candidates: [Int] = []
        for bucket in queryBuckets {
            for key in keyNumbers[Int(bucketStarts[Int(bucket)])..<Int(bucketStarts[Int(bucket) + 1])] {
                let key = Int(key)
                if shared[key] < UInt8.max { shared[key] += 1 }
                if shared[key] == minimumShared { candidates.append(key) }
            }
        }
        return candidates
    }

    /// The distinct buckets of the pairs of neighbouring scalars in `start + key + end`.
    private static func buckets(of key: [Unicode.Scalar]) -> [UInt16] {
        var buckets: [UInt16] = []
        var previous = start
        for scalar in key + [end] {
            let hash = (previous.value &* 0x9E37_79B1) ^ (scalar.value &* 0x85EB_CA6B)
            let bucket = UInt16(truncatingIfNeeded: hash >> 16)
            if !buckets.contains(bucket) { buckets.append(bucket) }
            previous = scalar
        }
        return buckets
    }
}
