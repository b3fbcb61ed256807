// How the control API puts tangibles, links, definitions and calibrations into a{sv} dictionaries.
import LightCheck
import MTKTangibles
import PercSystem
import PercRuntime

/// Builders of the `a{sv}` dictionaries the control API returns (keys in docs/control-api.md).
enum ControlValues {
    /// `locateAmbiguity`: the engine's setting, for the sensor-placement warning.
    static func tangible(_ d: TangibleDefinition, snapshot: TangibleSnapshot?, link: LinkSummary?,
                         locateAmbiguity: Double) -> [String: DBusValue] {
        var v: [String: DBusValue] = [
            "id": .int32(Int32(truncatingIfNeeded: d.id)), "name": .string(d.name), "kind": .string(d.kind.rawValue),
            "state": .string(snapshot?.state.rawValue ?? (d.kind == .perc ? "notInRange" : "notRecognized")),
        ]
        if let p = snapshot?.provenance { v["provenance"] = .string(p.rawValue) }
        if let pose = snapshot?.pose {
            v["x"] = .double(pose.position.x); v["y"] = .double(pose.position.y); v["angle"] = .double(pose.angle)
        }
        if let a = d.address { v["address"] = .string(a) }
        if let p = d.profile { v["profile"] = .string(p.rawValue) }
        if d.kind == .perc { v["link"] = .string(link?.state ?? "unknown") }
        if let o = d.lightSensorOffset { v["light_sensor_offset"] = point(o) }
        if let b = snapshot?.battery { v["battery"] = .int32(Int32(b)) }
        if let l = snapshot?.light { v["light"] = .int32(Int32(l)) }
        warn(d, locateAmbiguity: locateAmbiguity, into: &v)
        return v
    }

    /// `warnings` (an array of strings) when the PERC's light sensor is about equally far
    /// from two markers (see `TangibleDefinition.sensorPlacementWarning`).
    static func warn(_ d: TangibleDefinition, locateAmbiguity: Double, into v: inout [String: DBusValue]) {
        if let w = d.sensorPlacementWarning(tolerance: locateAmbiguity) { v["warnings"] = .array(element: "s", [.string(w)]) }
    }

    /// The signal's payload: only what changed state (id, name, state, provenance, pose).
    static func change(_ t: TangibleSnapshot) -> [String: DBusValue] {
        var v: [String: DBusValue] = ["id": .int32(Int32(truncatingIfNeeded: t.id)), "name": .string(t.name), "state": .string(t.state.rawValue)]
        if let p = t.provenance { v["provenance"] = .string(p.rawValue) }
        if let pose = t.pose { v["x"] = .double(pose.position.x); v["y"] = .double(pose.position.y); v["angle"] = .double(pose.angle) }
        return v
    }

    static func definition(_ d: TangibleDefinition) -> [String: DBusValue] {
        var v: [String: DBusValue] = [
            "id": .int32(Int32(truncatingIfNeeded: d.id)), "name": .string(d.name), "kind": .string(d.kind.rawValue),
            "markers": .array(element: "ad", d.markers.map(point)),
        ]
        if let a = d.address { v["address"] = .string(a) }
        if let o = d.lightSensorOffset { v["light_sensor_offset"] = point(o) }
        return v
    }

    static func calibration(_ r: CalibrationResult) -> [String: DBusValue] {
        var v: [String: DBusValue] = [
            "status": .string(r.status.rawValue), "confidence": .double(r.confidence),
            "tolerance": .double(r.tolerance), "rounds": .int32(Int32(r.rounds)),
        ]
        if let o = r.offset { v["offset"] = point(o) }
        if let s = r.surfacePosition { v["surface_position"] = point(s) }
        return v
    }

    static func link(_ l: LinkSummary) -> [String: DBusValue] {
        var v: [String: DBusValue] = ["address": .string(l.address), "name": .string(l.name), "state": .string(l.state)]
        if let p = l.profile { v["profile"] = .string(p) }
        if let t = l.tangible { v["tangible"] = .int32(Int32(truncatingIfNeeded: t)) }
        if let c = l.counters {
            v["notifications"] = .uint64(UInt64(max(0, c.notifications)))
            v["lost"] = .uint64(UInt64(max(0, c.lost)))
            v["link_ups"] = .uint32(UInt32(clamping: c.linkUps))
        }
        return v
    }

    static func point(_ p: Vec2) -> DBusValue { .array(element: "d", [.double(p.x), .double(p.y)]) }

    static func list(_ items: [[String: DBusValue]]) -> DBusValue {
        .array(element: "a{sv}", items.map { .stringVariantDictionary($0) })
    }
}
