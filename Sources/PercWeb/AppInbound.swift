// Decodes and validates app → service messages of the app protocol; never traps on input.
import Foundation
import MTKTangibles

/// One validated message from an app.
public enum AppInbound: Hashable, Sendable {
    case hello(name: String?, protocolVersion: Int, drawsOverlay: Bool, overlayFallback: Bool)
    /// Overlay `overlay` was on screen from `time` (service clock) or `appTime` (app clock).
    case presented(overlay: UInt64, time: Double?, appTime: Double?)
    case contacts([AppContact], appTime: Double?)
    case actuate(tangible: Int, ActuationRequest)
    case ping(id: Int64?, appTime: Double?)

    var type: String {
        switch self {
        case .hello: "hello"
        case .presented: "presented"
        case .contacts: "contacts"
        case .actuate: "actuate"
        case .ping: "ping"
        }
    }

    /// Decodes one text message; `surface` bounds contact positions (mm).
    static func decode(_ data: Data, surface: Vec2) -> Result<AppInbound, AppProtocolError> {
        let decoder = JSONDecoder()
        guard let envelope = try? decoder.decode(Envelope.self, from: data) else {
            return .failure(.init(code: .malformed, message: "not a JSON object with a string \"type\""))
        }
        let type = envelope.type
        func fail(_ message: String) -> Result<AppInbound, AppProtocolError> {
            .failure(.init(code: .invalid, message: message, inReplyTo: type))
        }
        func body<T: Decodable>(_: T.Type) -> T? { try? decoder.decode(T.self, from: data) }
        switch type {
        case "hello":
            guard let m = body(HelloIn.self) else { return fail("hello needs \"protocol\" (integer)") }
            guard m.protocol == AppWire.version else {
                return .failure(.init(code: .unsupportedVersion,
                                      message: "protocol \(m.protocol) is not supported; this service speaks \(AppWire.version)",
                                      inReplyTo: type))
            }
            return .success(.hello(name: m.name, protocolVersion: m.protocol, drawsOverlay: m.draws_overlay ?? false,
                                   overlayFallback: m.overlay_fallback ?? false))
        case "presented":
            guard let m = body(PresentedIn.self) else { return fail("presented needs \"overlay\" (integer) and optionally \"time\" or \"app_time\" (seconds)") }
            for t in [m.time, m.app_time].compactMap({ $0 }) where !t.isFinite || t < 0 {
                return fail("presented times must be finite and not negative")
            }
            return .success(.presented(overlay: m.overlay, time: m.time, appTime: m.app_time))
        case "contacts":
            guard let m = body(ContactsIn.self) else {
                return fail("contacts needs \"contacts\": [{\"id\", \"phase\": begin|move|end, \"x\", \"y\"}]")
            }
            guard m.contacts.count <= 256 else { return fail("at most 256 contacts per message") }
            for c in m.contacts {
                guard c.x.isFinite, c.y.isFinite, (0...surface.x).contains(c.x), (0...surface.y).contains(c.y) else {
                    return fail("contact \(c.id) at (\(c.x), \(c.y)) is outside the surface 0...\(surface.x) x 0...\(surface.y) mm")
                }
                for v in [c.major, c.minor, c.orientation].compactMap({ $0 }) where !v.isFinite {
                    return fail("contact \(c.id) has a non-finite size or orientation")
                }
            }
            if let t = m.app_time, !t.isFinite { return fail("app_time must be finite") }
            return .success(.contacts(m.contacts, appTime: m.app_time))
        case "actuate":
            guard let m = body(ActuateIn.self) else {
                return fail("actuate needs \"tangible\" and one of \"led\" (\"#rrggbb\" or \"off\"), \"vibrate_ms\", \"beep\"")
            }
            let request: ActuationRequest
            if let led = m.led {
                if led == "off" { request = .led(red: 0, green: 0, blue: 0) } else {
                    guard led.count == 7, led.hasPrefix("#"), let rgb = UInt32(led.dropFirst(), radix: 16) else {
                        return fail("led must be \"#rrggbb\" or \"off\"")
                    }
                    request = .led(red: UInt8(rgb >> 16 & 0xff), green: UInt8(rgb >> 8 & 0xff), blue: UInt8(rgb & 0xff))
                }
            } else if let ms = m.vibrate_ms {
                guard (0...5000).contains(ms) else { return fail("vibrate_ms must be 0 to 5000") }
                request = .vibrate(milliseconds: ms)
            } else if let beep = m.beep {
                request = .beep(on: beep)
            } else {
                return fail("actuate needs one of \"led\", \"vibrate_ms\", \"beep\"")
            }
            return .success(.actuate(tangible: m.tangible, request))
        case "ping":
            let m = body(PingIn.self)
            if let t = m?.app_time, !t.isFinite { return fail("app_time must be finite") }
            return .success(.ping(id: m?.id, appTime: m?.app_time))
        default:
            return .failure(.init(code: .unknownType,
                                  message: "unknown message type \"\(type.prefix(40))\"; known: hello, presented, contacts, actuate, ping",
                                  inReplyTo: String(type.prefix(40))))
        }
    }

    private struct Envelope: Decodable { var type: String }
    private struct HelloIn: Decodable { var `protocol`: Int; var name: String?; var draws_overlay: Bool?; var overlay_fallback: Bool? }
    private struct PresentedIn: Decodable { var overlay: UInt64; var time: Double?; var app_time: Double? }
    private struct ContactsIn: Decodable { var contacts: [AppContact]; var app_time: Double? }
    private struct ActuateIn: Decodable { var tangible: Int; var led: String?; var vibrate_ms: Int?; var beep: Bool? }
    private struct PingIn: Decodable { var id: Int64?; var app_time: Double? }
}

/// One touch an app forwards (`contacts` message), in surface millimetres.
public struct AppContact: Decodable, Hashable, Sendable {
    public var id: Int64
    public var phase: ContactUpdate.Phase
    public var x: Double
    public var y: Double
    public var major: Double?
    public var minor: Double?
    public var orientation: Double?
}

/// What an app may ask a tangible's actuators to do (PROTOCOLS.md §1 Actuator, §2 group 4).
public enum ActuationRequest: Hashable, Sendable {
    case led(red: UInt8, green: UInt8, blue: UInt8)
    case vibrate(milliseconds: Int)
    case beep(on: Bool)
}
