// One PERC module's link as List and Status show it.
import MTKTangibles

/// One module's link, for List and Status.
public struct LinkSummary: Sendable, Hashable {
    public var address: String
    public var name: String
    /// `connected`, `connecting`, `searching`, …, or for unregistered demo modules `in range`.
    public var state: String
    public var profile: String?
    public var tangible: TangibleID?
    /// Since the service started (serve's BlueZ links only): notifications received, those
    /// missing by sequence gaps (PERC GATT v1), and how often the link came up. A link that
    /// says `connected` but whose `notifications` do not grow while the PERC changes state
    /// is not streaming.
    public var counters: Counters?

    public init(address: String, name: String, state: String, profile: String? = nil, tangible: TangibleID? = nil,
                counters: Counters? = nil) {
        self.address = address; self.name = name; self.state = state; self.profile = profile
        self.tangible = tangible; self.counters = counters
    }

    public struct Counters: Sendable, Hashable {
        public var notifications: Int
        public var lost: Int
        public var linkUps: Int

        public init(notifications: Int, lost: Int, linkUps: Int) {
            self.notifications = notifications; self.lost = lost; self.linkUps = linkUps
        }
    }
}
