// One PERC module's link as List and Status show it.
import MTKTangibles

/// One module's link, for List and Status.
public struct LinkSummary: Sendable, Hashable {
    var address: String
    var name: String
    /// `connected`, `connecting`, `searching`, …, or for unregistered demo modules `in range`.
    var state: String
    var profile: String?
    var tangible: TangibleID?
    /// Since the service started (serve's BlueZ links only): notifications received, those
    /// missing by sequence gaps (PERC GATT v1), and how often the link came up. A link that
    /// says `connected` but whose `notifications` do not grow while the PERC changes state
    /// is not streaming.
    var counters: Counters?

    struct Counters: Sendable, Hashable {
        var notifications: Int
        var lost: Int
        var linkUps: Int
    }
}
