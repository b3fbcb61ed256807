// Where a PERC's light sensor sits against its markers: placements light cannot resolve.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two markers about equally far from a PERC's light sensor. When a PERC is put down with
/// only one marker touching, the engine finds the sensor with light and takes the pose with
/// a marker on the touch that puts the sensor there (docs/perc-state-machine.md, "locate").
/// If two markers are about as far from the sensor, a pose with either one on the touch puts
/// the sensor on the same spot, and light cannot tell which marker touches.
public struct SensorAmbiguity: Hashable, Sendable {
    /// Marker indices (as in `TangibleDefinition.markers`), `first < second`.
    public var first: Int
    public var second: Int
    /// The sensor's distance from each (mm).
    public var firstDistance: Double
    public var secondDistance: Double
    /// How far apart the two distances are (mm).
    public var difference: Double { abs(firstDistance - secondDistance) }
}

extension TangibleDefinition {
    /// The marker pairs whose distances from the light sensor differ by less than
    /// `tolerance` (mm; the engine's `locateAmbiguity`). Empty for a PUC or an unknown offset.
    public func sensorAmbiguities(tolerance: Double) -> [SensorAmbiguity] {
        guard kind == .perc, let s = lightSensorOffset, tolerance > 0 else { return [] }
        return Self.ambiguities(sensor: s, markers: markers, tolerance: tolerance)
    }

    /// The nearest sensor position (0.5 mm grid, within `reach` mm of the current one, inside
    /// the footprint and at least `clearance` mm from every marker) whose distances to the
    /// markers all differ by `tolerance + margin` or more; nil when none is in reach (or
    /// nothing is ambiguous now).
    public func suggestedSensorOffset(tolerance: Double, margin: Double = 0.5, reach: Double = 15,
                                      clearance: Double = 5) -> Vec2? {
        guard let s = lightSensorOffset, !sensorAmbiguities(tolerance: tolerance).isEmpty else { return nil }
        let step = 0.5
        let n = Int((reach / step).rounded(.down))
        var best: (distance: Double, point: Vec2)?
        for i in -n...n {
            for j in -n...n {
                let p = Vec2((s.x / step).rounded() * step + Double(i) * step, (s.y / step).rounded() * step + Double(j) * step)
                let d = p.distance(to: s)
                guard d <= reach, best.map({ d < $0.distance }) ?? true,
                      footprint.contains(p), markers.allSatisfy({ $0.distance(to: p) >= clearance }),
                      Self.ambiguities(sensor: p, markers: markers, tolerance: tolerance + margin).isEmpty else { continue }
                best = (d, p)
            }
        }
        return best?.point
    }

    /// One line for a PERC maker (nil when the sensor is well placed): which markers are
    /// about equally far from the sensor, what that does, and where to put it instead.
    public func sensorPlacementWarning(tolerance: Double) -> String? {
        let found = sensorAmbiguities(tolerance: tolerance)
        guard let s = lightSensorOffset, !found.isEmpty else { return nil }
        let pairs = found.map {
            "\(Self.mm($0.firstDistance)) mm from marker \($0.first) and \(Self.mm($0.secondDistance)) mm from marker \($0.second) (\(Self.mm($0.difference)) mm apart)"
        }.joined(separator: ", and ")
        var line = "the light sensor is \(pairs); light tells a marker's poses apart only when the distances differ by "
            + "\(Self.mm(tolerance)) mm or more, so a PERC put down with only one of these markers touching is not placed "
            + "until a second marker touches."
        if let better = suggestedSensorOffset(tolerance: tolerance) {
            line += " Put the sensor at (\(Self.mm(better.x)), \(Self.mm(better.y))) mm from the markers' centroid "
                + "(now (\(Self.mm(s.x)), \(Self.mm(s.y))) mm; \(Self.mm(better.distance(to: s))) mm away) or anywhere its distances to the three markers differ by \(Self.mm(tolerance)) mm or more."
        } else {
            line += " Move the sensor so that its distances to the three markers differ by \(Self.mm(tolerance)) mm or more."
        }
        return line
    }

    static func ambiguities(sensor s: Vec2, markers: [Vec2], tolerance: Double) -> [SensorAmbiguity] {
        var out: [SensorAmbiguity] = []
        for a in markers.indices {
            for b in markers.indices where b > a {
                let da = markers[a].distance(to: s), db = markers[b].distance(to: s)
                if abs(da - db) < tolerance { out.append(SensorAmbiguity(first: a, second: b, firstDistance: da, secondDistance: db)) }
            }
        }
        return out
    }

    private static func mm(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == 0 ? "0.0" : (r == r.rounded() ? "\(Int(r)).0" : "\(r)")
    }
}
