// Counts malformed input per kind and keeps where it was first seen, so each kind is reported once.
import Logging

/// Bad input bookkeeping shared by every decoder: counted, first location kept, reported
/// once per kind (through `logger`, if given), then skipped by the caller.
public struct BadInputLog: Sendable, CustomStringConvertible {
    public struct Entry: Hashable, Sendable, Codable {
        public var kind: String
        public var count: Int
        /// Where the first one was seen (file and line, event number, or sender address).
        public var firstLocation: String
        var firstDetail: String
    }

    public private(set) var entries: [String: Entry] = [:]
    public var logger: Logger?

    public init(logger: Logger? = nil) { self.logger = logger }

    public var total: Int { entries.values.reduce(0) { $0 + $1.count } }
    public func count(_ kind: String) -> Int { entries[kind]?.count ?? 0 }
    public var sorted: [Entry] { entries.values.sorted { $0.kind < $1.kind } }

    /// Records one bad input. Returns true the first time `kind` is seen (then it is logged).
    @discardableResult
    public mutating func record(_ kind: String, at location: @autoclosure () -> String,
                                _ detail: @autoclosure () -> String = "") -> Bool {
        if entries[kind] != nil {
            entries[kind]!.count += 1
            return false
        }
        let e = Entry(kind: kind, count: 1, firstLocation: location(), firstDetail: detail())
        entries[kind] = e
        logger?.warning("bad input skipped: \(kind) at \(e.firstLocation)\(e.firstDetail.isEmpty ? "" : ": " + e.firstDetail) (further ones are only counted)")
        return true
    }

    public mutating func merge(_ other: BadInputLog) {
        for (k, e) in other.entries {
            if entries[k] != nil { entries[k]!.count += e.count } else { entries[k] = e }
        }
    }

    public var description: String {
        sorted.map { "\($0.kind) ×\($0.count) (first at \($0.firstLocation)\($0.firstDetail.isEmpty ? "" : ": " + $0.firstDetail))" }
            .joined(separator: "; ")
    }
}
