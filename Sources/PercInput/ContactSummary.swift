// What a stream of contact updates holds: contacts, their begin/end and path, the most at once.
import MTKTangibles

/// Summary of a decoded touch stream (used by `percbridge input inspect`).
public struct ContactSummary: Codable, Sendable, Equatable {
    public struct Contact: Codable, Sendable, Equatable {
        public var id: Int64
        public var begin: Seconds
        /// nil if the stream ended with the contact still down.
        public var end: Seconds?
        public var samples: Int
        public var first: Vec2
        public var last: Vec2
        var pathLengthMM: Double
        /// Path in device units (raw), when the source has raw coordinates.
        var pathLengthRaw: Double?
    }

    public var contacts: [Contact] = []
    public var maxSimultaneous = 0
    public var updates = 0

    public init(_ updates: [ContactUpdate]) {
        var open: [Int64: Int] = [:]      // contact id → index in `contacts`
        var lastRaw: [Int64: Vec2] = [:]
        self.updates = updates.count
        for u in updates {
            switch u.phase {
            case .begin:
                open[u.contactID] = contacts.count
                contacts.append(Contact(id: u.contactID, begin: u.time, end: nil, samples: 1, first: u.position, last: u.position,
                                        pathLengthMM: 0, pathLengthRaw: u.raw == nil ? nil : 0))
                lastRaw[u.contactID] = u.raw
                maxSimultaneous = max(maxSimultaneous, open.count)
            case .move, .end:
                guard let i = open[u.contactID] else { continue }
                let step = Self.distance(contacts[i].last, u.position)
                contacts[i].pathLengthMM += step
                if let r = u.raw, let p = lastRaw[u.contactID] { contacts[i].pathLengthRaw? += Self.distance(p, r) }
                contacts[i].last = u.position
                lastRaw[u.contactID] = u.raw
                if u.phase == .move { contacts[i].samples += 1 } else {
                    contacts[i].end = u.time
                    open[u.contactID] = nil
                }
            }
        }
    }

    private static func distance(_ a: Vec2, _ b: Vec2) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
}
