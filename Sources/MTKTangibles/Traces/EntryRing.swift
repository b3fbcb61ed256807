// A bounded queue of values: a trace's entries, with O(1) append and O(1) drop-oldest.

/// The storage of a trace's entries: values in contiguous chunks of `chunkSize`, never one
/// object per entry. Appending never moves what is stored (a single growing buffer copied
/// all of a long trace's entries into fresh memory at each doubling — 115 kB per marker
/// trace at 1024 entries, page faults included: the slowest frames of the engine step), and
/// dropping the oldest entries moves nothing but, now and then, the short chunk list.
/// Logical index 0 is the oldest element.
struct EntryRing<Element>: Sendable where Element: Sendable {
    /// Elements per chunk (a power of two): 64 entries are about 7 kB, small enough to be
    /// recycled by malloc, large enough that the chunk list stays short.
    private static var chunkShift: Int { 6 }
    private static var chunkSize: Int { 1 << chunkShift }

    /// The full chunks, oldest first (the first may have dropped its oldest elements), and
    /// the chunk being filled, kept apart so that an append touches only its own buffer.
    private var full: ContiguousArray<ContiguousArray<Element>> = []
    private var tail = ContiguousArray<Element>()
    /// Position of logical element 0 in the first chunk (`full[0]`, or `tail` alone).
    private var head = 0
    private(set) var count = 0

    init() {}

    init(_ elements: some Sequence<Element>) {
        for e in elements { append(e) }
    }

    var isEmpty: Bool { count == 0 }

    subscript(i: Int) -> Element {
        get {
            let p = head + i, c = p >> Self.chunkShift, o = p & (Self.chunkSize - 1)
            return c < full.count ? full[c][o] : tail[o]
        }
        set {
            let p = head + i, c = p >> Self.chunkShift, o = p & (Self.chunkSize - 1)
            if c < full.count { full[c][o] = newValue } else { tail[o] = newValue }
        }
    }

    var last: Element? { tail.last }

    /// Appends to the chunk being filled; a full one joins the list and a new one starts.
    mutating func append(_ e: Element) {
        if tail.count == Self.chunkSize {
            full.append(tail)
            tail = ContiguousArray()
            tail.reserveCapacity(Self.chunkSize)
        } else if tail.capacity == 0 {
            tail.reserveCapacity(Self.chunkSize)
        }
        tail.append(e)
        count += 1
    }

    /// Drops the `k` oldest elements; chunks left empty are freed.
    mutating func removeFirst(_ k: Int) {
        let k = min(k, count)
        guard k > 0 else { return }
        count -= k
        if count == 0 { removeAll(); return }
        head += k
        // The newest element is in `tail`, so every spent chunk is one of `full`.
        let spent = head >> Self.chunkShift
        if spent > 0 {
            full.removeFirst(spent)
            head -= spent << Self.chunkShift
        }
    }

    mutating func removeAll() {
        full = []
        tail = []
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
}
