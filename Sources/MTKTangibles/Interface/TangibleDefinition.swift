// What a tangible is: its marker pattern and, for PERCs, its sensor and link details.

/// Which BLE profile a PERC speaks (PROTOCOLS.md §1, §2).
public enum PercProfile: String, Hashable, Sendable, Codable, CaseIterable {
    /// PERC GATT profile v1 (binary, sequence numbers, device time).
    case percV1 = "perc-v1"
    /// MTK serial profile over a transparent UART module (`ffe0`/`ffe1`).
    case mtkSerial = "mtk-serial"
    /// MTK serial frames over the Nordic UART Service.
    case nordicUART = "nordic-uart"
}

/// A PUC (3 markers) or a PERC (3 markers + BLE module + light sensor).
public struct TangibleDefinition: Hashable, Sendable, Codable, Identifiable {
    public enum Kind: String, Hashable, Sendable, Codable { case puc, perc }

    public var id: TangibleID
    public var name: String
    public var kind: Kind
    /// The three marker positions in the tangible's own frame, centred on their centroid (mm).
    public var markers: [Vec2]
    public var footprint: Footprint
    /// PERC only: light-sensor position in the tangible's own frame (mm).
    public var lightSensorOffset: Vec2?
    /// PERC only: the BLE address `AA:BB:CC:DD:EE:FF` and profile.
    public var address: String?
    public var profile: PercProfile?
    /// PERC only: which light-sensor value means white (default 1).
    public var lightWhiteValue: Int

    public init(id: TangibleID, name: String, kind: Kind, markers: [Vec2], footprint: Footprint,
                lightSensorOffset: Vec2? = nil, address: String? = nil, profile: PercProfile? = nil,
                lightWhiteValue: Int = 1) {
        self.id = id; self.name = name; self.kind = kind
        let c = markers.isEmpty ? Vec2.zero : markers.reduce(Vec2.zero, +) / Double(markers.count)
        self.markers = markers.map { $0 - c }
        self.footprint = footprint
        self.lightSensorOffset = lightSensorOffset
        self.address = address; self.profile = profile; self.lightWhiteValue = lightWhiteValue
    }

    /// The standard PERC of HARDWARE-MODEL.md: right isosceles triangle with 30 mm legs,
    /// light sensor at centroid + (5, 0), 60 mm round footprint.
    public static func standardPerc(id: TangibleID, name: String, address: String? = nil,
                                    profile: PercProfile = .percV1, leg: Double = 30) -> TangibleDefinition {
        TangibleDefinition(id: id, name: name, kind: .perc,
                           markers: [Vec2(0, 0), Vec2(leg, 0), Vec2(0, leg)],
                           footprint: .circle(radius: 30), lightSensorOffset: Vec2(5, 0),
                           address: address, profile: profile)
    }
}
