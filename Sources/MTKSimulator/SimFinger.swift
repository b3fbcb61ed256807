// The simulator's state of one finger on the surface.
import MTKTangibles

/// A user's finger: down at a position, maybe moving along a track, then lifted.
struct SimFinger: Sendable {
    var id: Int
    var track: SimTrack
    var contact: Int64?
    var down = true
}
