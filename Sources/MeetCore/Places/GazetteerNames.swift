/// The gazetteer's search keys (folded names, see ``GazetteerKey``) in UTF-8 byte order, each
/// with the numbers of the towns it names, kept in a few flat arrays so that loading it
/// allocates no object per name.
struct GazetteerNames: Sendable {
    /// Every key's UTF-8 bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where key `i` starts in `bytes`; one more entry than there are keys.
    private var keyStarts: [Int32] = [0]
    /// Where key `i`'s town numbers start in `townNumbers`; one more entry than keys.
    private var townStarts: [Int32] = [0]
    private var townNumbers: [Int32] = []

    var count: Int { keyStarts.count - 1 }

    /// Adds a key; keys must come in ascending byte order, as the gazetteer file has them.
    mutating func append(key: some Collection<UInt8>, towns: some Sequence<Int32>) {
        bytes.append(contentsOf: key)
        keyStarts.append(Int32(bytes.count))
        townNumbers.append(contentsOf: towns)
        townStarts.append(Int32(townNumbers.count))
    }

    /// All key bytes and the offsets of each key in them, for building indexes quickly.
    func withKeyBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int32>) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { bytes in
            try keyStarts.withUnsafeBufferPointer { starts in try body(bytes, starts) }
        }
    }

    func key(_ index: Int) -> ArraySlice<UInt8> {
        bytes[Int(keyStarts[index])..<Int(keyStarts[index + 1])]
    }

    func towns(ofKey index: Int) -> ArraySlice<Int32> {
        townNumbers[Int(townStarts[index])..<Int(townStarts[index + 1])]
    }

    /// The index of the key equal to `query`, if there is one.
    func index(of query: [UInt8]) -> Int? {
        let index = firstIndex(notBelow: query)
        return index < count && key(index).elementsEqual(query) ? index : nil
    }

    /// The indexes of the keys that start with `prefix`.
    func indexes(withPrefix prefix: [UInt8]) -> Range<Int> {
        // No UTF-8 sequence contains 0xFF, so it sorts after every continuation of the prefix.
        firstIndex(notBelow: prefix)..<firstIndex(notBelow: prefix + [0xFF])
    }

    private func firstIndex(notBelow query: [UInt8]) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if key(middle).lexicographicallyPrecedes(query) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
