// One PERC module's link as List and Status show it.
import MTKTangibles

/// One module's link, for List and Status.
struct LinkSummary: Sendable, Hashable {
    var address: String
    var name: String
    /// `connected`, `connecting`, `searching`, …, or for unregistered demo modules `in range`.
    var state: String
    var profile: String?
    var tangible: TangibleID?
}
