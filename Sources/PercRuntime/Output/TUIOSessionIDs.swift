// Hands out TUIO session ids: unique across tangibles and fingers, never reused.

/// TUIO clients key everything on the session id, across profiles, so tangible sessions
/// and finger traces must not collide (the engine numbers them independently).
struct TUIOSessionIDs {
    enum Key: Hashable { case tangible(session: Int64), pointer(Int64) }
    private var ids: [Key: Int32] = [:]
    private var next: Int32 = 1

    /// The id of `key`, allocating one on first sight.
    mutating func id(_ key: Key) -> Int32 {
        if let i = ids[key] { return i }
        let i = next
        next = next == Int32.max ? 1 : next + 1
        ids[key] = i
        return i
    }

    /// Forgets keys not alive any more (they never come back: engine ids are not reused).
    mutating func keep(only alive: Set<Key>) {
        ids = ids.filter { alive.contains($0.key) }
    }
}
