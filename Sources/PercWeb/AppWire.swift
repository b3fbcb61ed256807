// The JSON shapes of the WebSocket app protocol v1 (docs/app-protocol.md is the reference).
import MTKTangibles
import PercRuntime

/// Wire types of the app protocol. Service → app messages are `Encodable` structs; app →
/// service messages are decoded by `AppInbound`. Field names are snake_case on the wire.
public enum AppWire {
    static let version = 1

    public struct SurfaceInfo: Codable, Hashable, Sendable {
        public var name: String
        public var width_mm: Double
        public var height_mm: Double

        public init(name: String, width_mm: Double, height_mm: Double) {
            self.name = name; self.width_mm = width_mm; self.height_mm = height_mm
        }
    }

    struct TangibleInfo: Codable, Hashable, Sendable {
        var id: Int
        var name: String
        var kind: String
        /// Marker positions in the tangible's own frame (mm), `[[x, y], ...]`.
        var markers: [[Double]]
        var footprint_radius_mm: Double?
        var light_sensor: [Double]?
        var address: String?
        var profile: String?
    }

    struct Hello: Encodable {
        var type = "hello"
        var `protocol` = AppWire.version
        var service: String
        var surface: SurfaceInfo
        var tangibles: [TangibleInfo]
        var frame_rate_hz: Double
        var time: Double
        var accepts: [String]
    }

    /// To a fallback drawer (`overlay_fallback` in hello): whether it draws the overlay now, and
    /// when not, which app does.
    struct Drawing: Encodable {
        var type = "drawing"
        var draws: Bool
        var by: String?
    }

    struct PoseJSON: Codable, Hashable, Sendable {
        var x: Double
        var y: Double
        var angle: Double
    }

    public struct TangibleJSON: Encodable {
        var id: Int
        var name: String
        var state: String
        var pose: PoseJSON?
        /// State `placed`: the touch it stands on and its light sensor (surface mm); no pose.
        var placement: PlacementJSON?
        var provenance: String?
        var session: Int64?
        var velocity: [Double]
        /// Where the tangible will be `ahead_ms` from the frame time at its current velocity
        /// (only for apps that asked with `predict_ms` in hello, only with a pose).
        public var predicted: PredictedJSON?
        var sensors: Sensors
        struct Sensors: Encodable { var field: Int?; var light: Int?; var battery: Int? }
    }

    public struct PlacementJSON: Encodable {
        var sensor: [Double]
        var touch: [Double]
    }

    public struct PredictedJSON: Encodable {
        public var x: Double
        public var y: Double
        var angle: Double
        var ahead_ms: Int
    }

    struct PointerJSON: Encodable {
        var id: Int64
        var x: Double
        var y: Double
        var velocity: [Double]
        var origin: String
    }

    public struct FrameMessage: Encodable {
        var type = "frame"
        var frame: UInt64
        var time: Double
        public var tangibles: [TangibleJSON]
        var pointers: [PointerJSON]
    }

    struct PatchJSON: Encodable {
        var id: Int
        var tangible: Int
        var x: Double
        var y: Double
        var radius: Double
        var colour: String
        var purpose: String
    }

    struct OverlayMessage: Encodable {
        var type = "overlay"
        var overlay: UInt64
        var frame: UInt64
        /// When the plan was made: the time of `frame`, on the service clock.
        var time: Double
        var patches: [PatchJSON]
    }

    struct ErrorMessage: Encodable {
        var type = "error"
        var code: String
        var message: String
        var in_reply_to: String?
    }

    struct Pong: Encodable {
        var type = "pong"
        var id: Int64?
        var app_time: Double?
        var time: Double
    }
}

extension AppWire.TangibleInfo {
    init(_ d: TangibleDefinition) {
        var radius: Double?
        if case .circle(let r) = d.footprint { radius = r }
        self.init(id: d.id, name: d.name, kind: d.kind.rawValue, markers: d.markers.map { [$0.x, $0.y] },
                  footprint_radius_mm: radius, light_sensor: d.lightSensorOffset.map { [$0.x, $0.y] },
                  address: d.address, profile: d.profile?.rawValue)
    }
}

extension AppWire.FrameMessage {
    /// - Parameter aheadMS: the app's look-ahead (hello `predict_ms`); 0: no `predicted`.
    public init(_ s: SurfaceSnapshot, aheadMS: Int = 0) {
        self.init(frame: s.frame, time: s.time, tangibles: s.tangibles.map { t in
            AppWire.TangibleJSON(id: t.id, name: t.name, state: t.state.rawValue,
                                 pose: t.pose.map { AppWire.PoseJSON(x: $0.position.x, y: $0.position.y, angle: $0.angle) },
                                 placement: t.placement.map { AppWire.PlacementJSON(sensor: [$0.sensor.x, $0.sensor.y],
                                                                                     touch: [$0.touchPosition.x, $0.touchPosition.y]) },
                                 provenance: t.provenance?.rawValue, session: t.session,
                                 velocity: [t.velocity.x, t.velocity.y],
                                 predicted: aheadMS > 0 ? t.pose.map { p in
                                     let dt = Double(aheadMS) / 1000
                                     let at = p.position + t.velocity * dt
                                     return AppWire.PredictedJSON(x: at.x, y: at.y, angle: p.angle + t.angularVelocity * dt, ahead_ms: aheadMS)
                                 } : nil,
                                 sensors: .init(field: t.field, light: t.light, battery: t.battery))
        }, pointers: s.pointers.map {
            AppWire.PointerJSON(id: $0.id, x: $0.position.x, y: $0.position.y,
                                velocity: [$0.velocity.x, $0.velocity.y], origin: $0.origin)
        })
    }
}

extension AppWire.OverlayMessage {
    init(_ o: Overlay, frame: UInt64, time: Double) {
        self.init(overlay: o.id, frame: frame, time: time, patches: o.patches.map {
            AppWire.PatchJSON(id: $0.id, tangible: $0.tangible, x: $0.center.x, y: $0.center.y,
                              radius: $0.radius, colour: $0.colour.rawValue, purpose: $0.purpose.rawValue)
        })
    }
}
