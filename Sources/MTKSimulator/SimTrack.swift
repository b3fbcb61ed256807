// A piecewise-linear path of a position and an angle over virtual time (tangibles, fingers).
import MTKTangibles

/// Key poses over time, linearly interpolated; the angle is kept unwrapped so that a
/// rotation by more than 180° turns the way it was asked to.
struct SimTrack: Hashable, Sendable {
    struct Key: Hashable, Sendable {
        var time: Seconds
        var position: Vec2
        var angle: Double
    }
    private(set) var keys: [Key]

    init(at time: Seconds, position: Vec2, angle: Double) {
        keys = [Key(time: time, position: position, angle: angle)]
    }

    /// The pose at `t`, stamped `t` (before the first key or after the last, that key's pose).
    func key(at t: Seconds) -> Key {
        guard let first = keys.first, t > first.time else { return Key(time: t, position: keys[0].position, angle: keys[0].angle) }
        let last = keys[keys.count - 1]
        guard t < last.time else { return Key(time: t, position: last.position, angle: last.angle) }
        var lo = 0, hi = keys.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if keys[mid].time <= t { lo = mid } else { hi = mid }
        }
        let a = keys[lo], b = keys[hi]
        let f = b.time > a.time ? (t - a.time) / (b.time - a.time) : 1
        return Key(time: t, position: a.position + (b.position - a.position) * f, angle: a.angle + (b.angle - a.angle) * f)
    }

    func pose(at t: Seconds) -> Pose {
        let k = key(at: t)
        return Pose(position: k.position, angle: k.angle)
    }

    /// Whether the pose changes around `t` (inside a segment whose ends differ).
    func isMoving(at t: Seconds) -> Bool {
        guard let first = keys.first, t >= first.time, let last = keys.last, t < last.time else { return false }
        var lo = 0, hi = keys.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if keys[mid].time <= t { lo = mid } else { hi = mid }
        }
        let a = keys[lo], b = keys[hi]
        return a.position != b.position || a.angle != b.angle
    }

    /// When the last planned motion ends.
    var endTime: Seconds { keys[keys.count - 1].time }

    /// Drops the plan after `t` and continues from where it is at `t`.
    mutating func cut(at t: Seconds) {
        let here = key(at: t)
        while let last = keys.last, last.time >= t { keys.removeLast() }
        keys.append(here)
    }

    /// From `t`, along `waypoints` (the last is the goal) at constant speed, turning by
    /// `turn` radians on the way, taking `duration` seconds in all.
    mutating func move(at t: Seconds, through waypoints: [Vec2], turn: Double, duration: Seconds) {
        cut(at: t)
        let start = keys[keys.count - 1]
        let points = waypoints.isEmpty ? [start.position] : waypoints
        var lengths: [Double] = []
        var prev = start.position
        for p in points { lengths.append(p.distance(to: prev)); prev = p }
        let total = lengths.reduce(0, +)
        let d = max(duration, 0)
        var done = 0.0
        for (i, p) in points.enumerated() {
            done += lengths[i]
            let f = total > 0 ? done / total : Double(i + 1) / Double(points.count)
            keys.append(Key(time: t + d * f, position: p, angle: start.angle + turn * f))
        }
    }

    /// Moves at once (no interpolation from the previous key), e.g. a new placement.
    mutating func jump(at t: Seconds, position: Vec2, angle: Double) {
        cut(at: t)
        keys.append(Key(time: t, position: position, angle: angle))
    }
}
