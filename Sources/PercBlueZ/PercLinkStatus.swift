// What a PercLink is doing, in words a person can act on (logged and shown by `monitor`).
import Foundation

/// How notifications reach us.
public enum NotifyPath: String, Sendable, Codable {
    /// AcquireNotify: a socket, one datagram per notification.
    case acquireNotify = "AcquireNotify"
    /// StartNotify: PropertiesChanged(Value) signals.
    case startNotify = "StartNotify"
}

/// A state change of one PERC's link.
public enum PercLinkStatus: Sendable, Hashable, CustomStringConvertible {
    case waitingForBluetoothd
    case waitingForAdapter
    case searching
    case connecting(attempt: Int)
    case connected(profile: PercProfileName, path: NotifyPath)
    case lost(reason: String)
    case retrying(after: String, inSeconds: Double)
    /// BlueZ is connecting it already (its own auto-connect): waiting for Connected, no timer.
    case awaitingConnection(String)
    case notAPerc(services: [String])

    /// The profile's raw value (MTKTangibles' PercProfile), kept as text for logs and JSON.
    public typealias PercProfileName = String

    public var description: String {
        switch self {
        case .waitingForBluetoothd: "waiting for bluetoothd to appear on the bus"
        case .waitingForAdapter: "waiting for a Bluetooth adapter"
        case .searching: "not known to BlueZ yet: discovering"
        case .connecting(let n): n == 1 ? "connecting" : "connecting (attempt \(n))"
        case .connected(let profile, let path): "connected, \(profile), notifications via \(path.rawValue)"
        case .lost(let reason): "link lost: \(reason)"
        case .retrying(let why, let s): "\(why); retrying in \(String(format: "%.1f", s)) s"
        case .awaitingConnection(let why):
            "unreachable: BlueZ answered \(why); it connects as soon as the PERC advertises"
        case .notAPerc(let services):
            "connected, but it has none of the PERC services (found: \(services.isEmpty ? "none" : services.joined(separator: ", ")))"
        }
    }
}
