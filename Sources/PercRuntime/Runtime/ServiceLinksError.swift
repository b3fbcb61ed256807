// Why a pair, forget or actuate request of the service failed, with what to do about it.
import MTKTangibles
import PercBlueZ

/// Errors of `ServiceLinks`' control API. Pairing failures themselves are `PercPairingError`.
public enum ServiceLinksError: Error, Sendable, Equatable, CustomStringConvertible {
    case bluetoothDisabled
    /// The D-Bus bus of `[bluetooth] bus` could not be reached (yet).
    case noBus(bus: String, reason: String)
    case notRunning
    case unknownTangible(TangibleID)
    case notAPerc(TangibleID, name: String)
    case noAddress(TangibleID, name: String)
    case notConnected(TangibleID, name: String, status: String)
    /// The registry entry is gone, but BlueZ kept the bond.
    case removeDeviceFailed(address: String, error: String)
    case registry(String)

    /// Short machine-readable name (D-Bus error names, JSON output).
    var code: String {
        switch self {
        case .bluetoothDisabled: "bluetooth-disabled"
        case .noBus: "no-bus"
        case .notRunning: "not-running"
        case .unknownTangible: "unknown-tangible"
        case .notAPerc: "not-a-perc"
        case .noAddress: "no-address"
        case .notConnected: "not-connected"
        case .removeDeviceFailed: "remove-device-failed"
        case .registry: "registry"
        }
    }

    public var description: String {
        switch self {
        case .bluetoothDisabled:
            "Bluetooth is switched off in the config ([bluetooth] enabled = false); set it to true and restart the service"
        case .noBus(let bus, let reason):
            "BlueZ is not reachable on the \(bus) (\(reason)); check that D-Bus and bluetoothd run (systemctl status bluetooth) or set [bluetooth] bus"
        case .notRunning:
            "the service's BlueZ links are not started yet; try again in a moment"
        case .unknownTangible(let id):
            "no tangible \(id) in the registry; `percbridge list` shows the known ones"
        case .notAPerc(let id, let name):
            "tangible \(id) (\(name)) is a PUC: it has no Bluetooth link or actuators"
        case .noAddress(let id, let name):
            "PERC \(id) (\(name)) has no Bluetooth address in the registry; pair it with `percbridge pair ADDRESS`"
        case .notConnected(let id, let name, let status):
            "PERC \(id) (\(name)) is not connected (\(status)); switch it on, bring it near and try again"
        case .removeDeviceFailed(let address, let error):
            "forgot the tangible, but BlueZ kept \(address) (\(error)); remove it with `bluetoothctl remove \(address)`"
        case .registry(let reason):
            reason
        }
    }
}
