// One MTK serial frame `[group:index:value]` (PROTOCOLS.md §2) and the frames the host sends.

/// One ASCII frame of the MTK serial profile.
struct MTKFrame: Hashable, Sendable, CustomStringConvertible {
    /// Group 2: surface (field) sensor; 3: light sensor; 4: actuators.
    var group: Int
    var index: Int
    var value: String

    static let fieldGroup = 2
    static let lightGroup = 3
    static let actuatorGroup = 4

    var description: String { "[\(group):\(index):\(value)]" }
    var bytes: [UInt8] { Array(description.utf8) }

    /// Parses the text between `[` and `]`; nil when it is not `int:int:value`.
    init?(body: some Collection<UInt8>) {
        let parts = body.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3,
              let g = Int(String(decoding: parts[0], as: UTF8.self)),
              let i = Int(String(decoding: parts[1], as: UTF8.self)),
              !parts[2].isEmpty,
              parts[2].allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") })
        else { return nil }
        group = g; index = i; value = String(decoding: parts[2], as: UTF8.self)
    }

    init(group: Int, index: Int, value: String) {
        self.group = group; self.index = index; self.value = value
    }

    /// `[g:0:s]`: asks the module to report group g (2 field, 3 light).
    static func subscribe(group: Int) -> MTKFrame { MTKFrame(group: group, index: 0, value: "s") }
}
