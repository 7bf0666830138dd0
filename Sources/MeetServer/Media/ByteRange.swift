import Foundation

/// A single-range `Range: bytes=...` request header (RFC 9110 §14), resolved against a length.
enum ByteRange: Equatable {
    /// Serve these bytes with 206.
    case satisfiable(ClosedRange<Int>)
    /// Nothing of the file is in the range: 416.
    case unsatisfiable

    /// `nil` when the header is to be ignored (and the whole file served with 200): not a
    /// `bytes` range, malformed, or several ranges, which this server does not combine.
    init?(header: String, length: Int) {
        guard header.hasPrefix("bytes="), length > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // The last N bytes.
            guard let suffix = Int(last), suffix >= 0 else { return nil }
            self = suffix == 0 ? .unsatisfiable : .satisfiable(max(0, length - suffix)...(length - 1))
            return
        }
        guard let start = Int(first), start >= 0 else { return nil }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let value = Int(last), value >= start else { return nil }
            end = min(value, length - 1)
        }
        self = start >= length ? .unsatisfiable : .satisfiable(start...end)
    }
}
