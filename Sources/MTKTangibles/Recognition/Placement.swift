// A PERC put down with one marker touching, whose orientation light cannot resolve.

/// A PERC `placed`: a locate check found its light sensor next to its one marker touch, but
/// every pose that puts the sensor there stands on that touch with a different marker (the
/// sensor is about equally far from those markers: `TangibleDefinition.sensorAmbiguities`).
/// The touch and the sensor are known; which way it is turned is not. It stays placed until
/// a second marker touches (a pair or triple then fits and is checked as usual) or the touch
/// ends; while the touch moves, both points move with it.
public struct Placement: Hashable, Sendable, Codable {
    /// The marker touch it stands on (held by the PERC: not reported as a finger).
    public var touch: TraceID
    /// Where the touch is now, and where the light sensor is (surface mm).
    public var touchPosition: Vec2
    public var sensor: Vec2
    /// How many poses fit (one per marker that could be on the touch).
    public var poses: Int
    public var since: Seconds

    public init(touch: TraceID, touchPosition: Vec2, sensor: Vec2, poses: Int, since: Seconds) {
        self.touch = touch; self.touchPosition = touchPosition; self.sensor = sensor; self.poses = poses; self.since = since
    }

    /// The touch moved to `position`: the sensor keeps its place relative to it.
    func moved(to position: Vec2) -> Placement {
        var p = self
        p.sensor = sensor + (position - touchPosition)
        p.touchPosition = position
        return p
    }
}
