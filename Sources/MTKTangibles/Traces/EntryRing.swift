// A bounded ring buffer of values: a trace's entries, with O(1) append and O(1) drop-oldest.

/// The storage of a trace's entries (and samples): one contiguous buffer used as a ring,
/// so that dropping the oldest entries when a trace reaches its cap moves nothing (a
/// `removeFirst` on an array moved ~1000 entries of every long trace at once, the largest
/// spikes of the engine step). Logical index 0 is the oldest element.
struct EntryRing<Element>: Sendable where Element: Sendable {
    private var buffer: ContiguousArray<Element> = []
    /// Physical index of logical element 0 (0 until the buffer wraps).
    private var head = 0
    private(set) var count = 0

    init() {}

    init(_ elements: some Sequence<Element>) {
        buffer = ContiguousArray(elements)
        count = buffer.count
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func physical(_ i: Int) -> Int {
        let p = head + i
        return p >= buffer.count ? p - buffer.count : p
    }

    subscript(i: Int) -> Element {
        get { buffer[physical(i)] }
        set { buffer[physical(i)] = newValue }
    }

    var last: Element? { count == 0 ? nil : self[count - 1] }

    /// Appends; when the buffer is full the ring grows (doubling, unwrapped first), but not
    /// past `limit` elements: the table never keeps more than its per-trace cap, and a
    /// doubling from 1024 to 2048 entries wasted 95 kB per long trace.
    mutating func append(_ e: Element, limit: Int = .max) {
        if count < buffer.count {
            buffer[physical(count)] = e
        } else {
            if head != 0 || buffer.count == buffer.capacity {
                unwrap(capacity: Swift.max(count + 1, Swift.min(Swift.max(buffer.count * 2, 4), limit)))
            }
            buffer.append(e)
        }
        count += 1
    }

    /// Drops the `k` oldest elements without moving the others.
    mutating func removeFirst(_ k: Int) {
        let k = min(k, count)
        guard k > 0 else { return }
        head = physical(k)
        count -= k
        if count == 0 { head = 0 }
    }

    mutating func removeAll() {
        buffer = []
        head = 0
        count = 0
    }

    /// The elements in order, as an array (for callers outside the table).
    var elements: ContiguousArray<Element> {
        var out = ContiguousArray<Element>()
        out.reserveCapacity(count)
        for i in 0..<count { out.append(self[i]) }
        return out
    }

    /// Moves the live elements, in order, into a new buffer of `capacity` (before it grows).
    private mutating func unwrap(capacity: Int) {
        var out = ContiguousArray<Element>()
        out.reserveCapacity(capacity)
        if head == 0 {
            out.append(contentsOf: buffer[0..<count])
        } else {
            for i in 0..<count { out.append(self[i]) }
        }
        buffer = out
        head = 0
    }
}
