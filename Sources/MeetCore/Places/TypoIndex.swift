/// Finds the gazetteer keys that share enough character pairs (bigrams) with a query to be
/// within a few typos of it; ``editDistance(_:_:)`` then checks them.
///
/// Pairs are hashed into 65,536 buckets laid out in two flat arrays (a counting sort), so
/// building it makes no dictionary; a collision only adds a candidate, never loses one.
struct TypoIndex: Sendable {
    private static let bucketCount = 1 << 16
    /// Mark the start and the end of a key, so that first and last letters count as pairs.
    private static let start: UInt32 = 0x02, end: UInt32 = 0x03

    /// Where bucket `b`'s key numbers start in `keyNumbers`; one more entry than buckets.
    private let bucketStarts: [Int32]
    private let keyNumbers: [Int32]
    private let keyCount: Int

    init(names: GazetteerNames) {
        keyCount = names.count
        // First every key's distinct buckets, one after the other, then a counting sort.
        // Raw buffers keep this quick even in a debug build: it runs over 3 million pairs.
        var keyBuckets: [UInt16] = []
        var keyBucketStarts = [Int32](repeating: 0, count: names.count + 1)
        var counts = [Int32](repeating: 0, count: Self.bucketCount + 1)
        names.withKeyBytes { bytes, starts in
            keyBuckets.reserveCapacity(bytes.count + 2 * names.count)
            var scalars: [UInt32] = []
            var buckets: [UInt16] = []
            counts.withUnsafeMutableBufferPointer { counts in
                for index in 0..<names.count {
                    Self.decodeUTF8(bytes, Int(starts[index])..<Int(starts[index + 1]), into: &scalars)
                    Self.buckets(of: scalars, into: &buckets)
                    keyBuckets.append(contentsOf: buckets)
                    for bucket in buckets { counts[Int(bucket) + 1] += 1 }
                    keyBucketStarts[index + 1] = Int32(keyBuckets.count)
                }
                for bucket in 0..<Self.bucketCount { counts[bucket + 1] += counts[bucket] }
            }
        }
        bucketStarts = counts
        var next = counts
        var keyNumbers = [Int32](repeating: 0, count: keyBuckets.count)
        keyNumbers.withUnsafeMutableBufferPointer { keyNumbers in
            next.withUnsafeMutableBufferPointer { next in
                keyBuckets.withUnsafeBufferPointer { keyBuckets in
                    for index in 0..<names.count {
                        for position in Int(keyBucketStarts[index])..<Int(keyBucketStarts[index + 1]) {
                            let bucket = Int(keyBuckets[position])
                            keyNumbers[Int(next[bucket])] = Int32(index)
                            next[bucket] += 1
                        }
                    }
                }
            }
        }
        self.keyNumbers = keyNumbers
    }

    /// Keys that may be within `edits` typos of `query`: those that keep enough of its
    /// pairs, given that one edit spoils at most three (a swap of neighbours).
    func candidates(for query: [Unicode.Scalar], edits: Int) -> [Int] {
        var queryBuckets: [UInt16] = []
        Self.buckets(of: query.map(\.value), into: &queryBuckets)
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
    private static func buckets(of key: [UInt32], into buckets: inout [UInt16]) {
        buckets.removeAll(keepingCapacity: true)
        var previous = start
        for index in 0...key.count {
            let scalar = index < key.count ? key[index] : end
            let hash = (previous &* 0x9E37_79B1) ^ (scalar &* 0x85EB_CA6B)
            let bucket = UInt16(truncatingIfNeeded: hash >> 16)
            var seen = false
            for earlier in buckets where earlier == bucket { seen = true }
            if !seen { buckets.append(bucket) }
            previous = scalar
        }
    }

    /// The scalar values of the UTF-8 in `bytes[range]` (which the gazetteer's own script
    /// wrote, so well formed).
    private static func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into scalars: inout [UInt32]) {
        scalars.removeAll(keepingCapacity: true)
        var index = range.lowerBound
        while index < range.upperBound {
            let lead = UInt32(bytes[index])
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            var value = length == 1 ? lead : lead & (0xFF >> UInt32(length + 1))
            for offset in 1..<max(length, 1) where index + offset < range.upperBound {
                value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
            }
            scalars.append(value)
            index += length
        }
    }
}
