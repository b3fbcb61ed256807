// The part of the app protocol (docs/app-protocol.md) the overlay speaks: what it reads and writes.
import Foundation

/// A message from the service, as far as the overlay cares.
public enum ServiceMessage: Equatable, Sendable {
    case hello(protocolVersion: Int, surfaceWidthMM: Double, surfaceHeightMM: Double, service: String)
    /// Whether this overlay draws now (it said `overlay_fallback`), and if not, who does.
    case drawing(draws: Bool, by: String?)
    /// `time`: when the service planned it (its clock).
    case overlay(id: UInt64, time: Double?, patches: [Patch])
    case pong(id: Int64, appTime: Double?, time: Double)
    case error(code: String, message: String)
    /// Frames and anything newer than this overlay knows: not for the overlay.
    case other

    public struct Patch: Equatable, Sendable, Decodable {
        public var id: Int64
        public var x: Double
        public var y: Double
        public var radius: Double
        public var colour: String
        public init(id: Int64, x: Double, y: Double, radius: Double, colour: String) {
            self.id = id; self.x = x; self.y = y; self.radius = radius; self.colour = colour
        }
    }

    private struct Envelope: Decodable { var type: String }
    private struct HelloIn: Decodable {
        var `protocol`: Int
        var service: String?
        var surface: Surface
        struct Surface: Decodable { var width_mm: Double; var height_mm: Double }
    }
    private struct DrawingIn: Decodable { var draws: Bool; var by: String? }
    private struct OverlayIn: Decodable { var overlay: UInt64; var time: Double?; var patches: [Patch] }
    private struct PongIn: Decodable { var id: Int64?; var app_time: Double?; var time: Double }
    private struct ErrorIn: Decodable { var code: String; var message: String }

    /// Decodes one text message; nil when it is not JSON or lacks what its type needs.
    public static func decode(_ data: Data) -> ServiceMessage? {
        let d = JSONDecoder()
        guard let type = try? d.decode(Envelope.self, from: data).type else { return nil }
        switch type {
        case "hello":
            guard let m = try? d.decode(HelloIn.self, from: data) else { return nil }
            return .hello(protocolVersion: m.protocol, surfaceWidthMM: m.surface.width_mm, surfaceHeightMM: m.surface.height_mm,
                          service: m.service ?? "?")
        case "drawing":
            guard let m = try? d.decode(DrawingIn.self, from: data) else { return nil }
            return .drawing(draws: m.draws, by: m.by)
        case "overlay":
            guard let m = try? d.decode(OverlayIn.self, from: data) else { return nil }
            return .overlay(id: m.overlay, time: m.time, patches: m.patches)
        case "pong":
            guard let m = try? d.decode(PongIn.self, from: data) else { return nil }
            return .pong(id: m.id ?? 0, appTime: m.app_time, time: m.time)
        case "error":
            guard let m = try? d.decode(ErrorIn.self, from: data) else { return nil }
            return .error(code: m.code, message: m.message)
        default:
            return .other
        }
    }
}

/// Messages the overlay sends.
public enum OverlayOutbound {
    /// The protocol version this overlay speaks.
    public static let protocolVersion = 1

    public static func hello(name: String) -> String {
        json(["type": "hello", "protocol": protocolVersion, "name": name, "draws_overlay": true, "overlay_fallback": true])
    }

    public static func ping(id: Int64, appTime: Double) -> String {
        json(["type": "ping", "id": id, "app_time": appTime])
    }

    /// `time` on the service clock when the ping mapping is known, else only `app_time`
    /// (the service then takes the arrival time, docs/app-protocol.md).
    public static func presented(overlay: UInt64, time: Double?, appTime: Double) -> String {
        var m: [String: Any] = ["type": "presented", "overlay": overlay, "app_time": appTime]
        if let time { m["time"] = time }
        return json(m)
    }

    private static func json(_ object: [String: Any]) -> String {
        // Our own dictionaries of strings, numbers and booleans always serialise.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Maps this machine's monotonic clock to the service clock from ping/pong pairs: the offset
/// of the pair with the shortest round trip (its midpoint is the best guess of when the
/// service read its clock), as percbridge.js does.
public struct ClockMapping: Sendable, Equatable {
    public private(set) var offset: Double?
    public private(set) var bestRoundTrip = Double.infinity
    public init() {}

    /// A pong for a ping sent at `sent` and received at `received` (both local seconds).
    public mutating func add(sent: Double, received: Double, serviceTime: Double) {
        let rtt = received - sent
        guard rtt >= 0, rtt.isFinite, serviceTime.isFinite, rtt <= bestRoundTrip else { return }
        bestRoundTrip = rtt
        offset = serviceTime - (sent + received) / 2
    }

    public func serviceTime(_ local: Double) -> Double? { offset.map { local + $0 } }
}
