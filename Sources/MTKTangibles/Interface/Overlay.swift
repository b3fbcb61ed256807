// Light-check overlays: what the scheduler asks apps to draw, and what apps say they presented.

/// The colour a light sensor sees.
public enum LightColour: String, Hashable, Sendable, Codable {
    case black, white
    public var opposite: LightColour { self == .black ? .white : .black }
    /// Sensor value convention (SensorKind.light): 1 white, 0 black.
    public init(sensorValue: Int) { self = sensorValue == 0 ? .black : .white }
    public var sensorValue: Int { self == .white ? 1 : 0 }
}

/// One small disc the app draws for a light check.
public struct Patch: Hashable, Sendable, Codable {
    public enum Purpose: String, Hashable, Sendable, Codable {
        case probe, decoy, stationary, calibration
    }
    public var id: Int
    public var tangible: TangibleID
    /// Centre on the surface, millimetres.
    public var center: Vec2
    public var radius: Double
    public var colour: LightColour
    public var purpose: Purpose

    public init(id: Int, tangible: TangibleID, center: Vec2, radius: Double, colour: LightColour, purpose: Purpose) {
        self.id = id; self.tangible = tangible; self.center = center
        self.radius = radius; self.colour = colour; self.purpose = purpose
    }
}

/// Everything the app should draw for light checks, as of one frame. Each new plan gets a new id.
public struct Overlay: Hashable, Sendable, Codable {
    public var id: UInt64
    public var patches: [Patch]
    public init(id: UInt64, patches: [Patch]) { self.id = id; self.patches = patches }
    public static let empty = Overlay(id: 0, patches: [])
}

/// The app's report that an overlay was on screen from a time on (service clock).
public struct PresentedOverlay: Hashable, Sendable, Codable {
    public var overlayID: UInt64
    public var from: Seconds
    public init(overlayID: UInt64, from: Seconds) { self.overlayID = overlayID; self.from = from }
}
