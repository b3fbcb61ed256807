// A tangible as a scenario file declares it, with defaults for the standard PERC.
import MTKTangibles

/// A tangible of a scenario. Omitted fields take the standard PERC's values
/// (HARDWARE-MODEL.md): markers `[[0,0],[30,0],[0,30]]`, light sensor at the centroid +
/// (5, 0), a round footprint of radius 30 mm (or 10 mm beyond the farthest marker), PERC
/// GATT v1, linked from the start.
public struct ScenarioTangible: Hashable, Sendable, Codable {
    public var id: TangibleID
    public var name: String
    public var kind: TangibleDefinition.Kind?
    /// Marker positions in any frame; they are centred on their centroid.
    public var markers: [ScenarioPoint]?
    /// Light-sensor position relative to the marker centroid (PERC only).
    public var lightSensorOffset: ScenarioPoint?
    public var footprintRadius: Double?
    public var address: String?
    public var profile: PercProfile?
    public var lightWhiteValue: Int?
    /// Whether the PERC's link is up at the start (default true).
    public var linked: Bool?

    public init(id: TangibleID, name: String, kind: TangibleDefinition.Kind? = nil, markers: [ScenarioPoint]? = nil,
                lightSensorOffset: ScenarioPoint? = nil, footprintRadius: Double? = nil, address: String? = nil,
                profile: PercProfile? = nil, lightWhiteValue: Int? = nil, linked: Bool? = nil) {
        self.id = id; self.name = name; self.kind = kind; self.markers = markers
        self.lightSensorOffset = lightSensorOffset; self.footprintRadius = footprintRadius
        self.address = address; self.profile = profile; self.lightWhiteValue = lightWhiteValue; self.linked = linked
    }

    /// The definition this declares.
    public var definition: TangibleDefinition {
        let k = kind ?? .perc
        let pts = (markers ?? [[0, 0], [30, 0], [0, 30]]).map(\.vec)
        let c = pts.reduce(Vec2.zero, +) / Double(max(pts.count, 1))
        let reach = pts.map { $0.distance(to: c) }.max() ?? 0
        let radius = footprintRadius ?? (markers == nil ? 30 : reach + 10)
        return TangibleDefinition(
            id: id, name: name, kind: k, markers: pts, footprint: .circle(radius: radius),
            lightSensorOffset: k == .perc ? (lightSensorOffset?.vec ?? Vec2(5, 0)) : nil,
            address: k == .perc ? (address ?? String(format6(id))) : nil,
            profile: k == .perc ? (profile ?? .percV1) : nil,
            lightWhiteValue: lightWhiteValue ?? 1)
    }
}

/// A made-up BLE address for a simulated PERC: `5E:00:00:00:00:<id>`.
private func format6(_ id: Int) -> String {
    let hex = String(UInt8(truncatingIfNeeded: id), radix: 16, uppercase: true)
    let hi = String(UInt8(truncatingIfNeeded: id >> 8), radix: 16, uppercase: true)
    return "5E:00:00:00:\(hi.count == 1 ? "0" + hi : hi):\(hex.count == 1 ? "0" + hex : hex)"
}
