// Why pairing a PERC failed, with a message that says what to do.

/// A failed `PercPairing`. Every case says what happened and what to try.
public enum PercPairingError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidAddress(String)
    case noBluetoothd(bus: String)
    case noAdapter
    case notFound(address: String, seconds: Double)
    /// BlueZ (or the device) refused: the `org.bluez.Error.*` name and message.
    case refused(address: String, error: String, message: String)
    case vanished(address: String)
    case timedOut(address: String, step: String, seconds: Double)
    case notAPerc(address: String, services: [String])
    case failed(address: String, step: String, error: String)

    /// Short machine-readable name (JSON output, exit reasons).
    public var code: String {
        switch self {
        case .invalidAddress: "invalid-address"
        case .noBluetoothd: "no-bluetoothd"
        case .noAdapter: "no-adapter"
        case .notFound: "not-found"
        case .refused: "refused"
        case .vanished: "vanished"
        case .timedOut: "timeout"
        case .notAPerc: "not-a-perc"
        case .failed: "failed"
        }
    }

    public var description: String {
        switch self {
        case .invalidAddress(let a):
            "'\(a)' is not a Bluetooth address; write it as AA:BB:CC:DD:EE:FF (see `percbridge scan`)"
        case .noBluetoothd(let bus):
            "bluetoothd (org.bluez) is not on the \(bus); start it (systemctl start bluetooth) or pass --bus"
        case .noAdapter:
            "BlueZ has no Bluetooth adapter; plug one in or unblock it (rfkill unblock bluetooth)"
        case .notFound(let a, let s):
            "\(a) was not found in \(Int(s)) s of scanning; is the PERC switched on and near? (`percbridge scan` lists what is in range)"
        case .refused(let a, let e, let m):
            "\(a) refused pairing: \(e)\(m.isEmpty ? "" : " (\(m))"); remove the old bond (bluetoothctl remove \(a)), reset the PERC and try again"
        case .vanished(let a):
            "\(a) disappeared while pairing (out of range or switched off); bring it closer and try again"
        case .timedOut(let a, let step, let s):
            "\(a) did not finish \(step) within \(Int(s)) s; try again closer to the PERC, or raise --timeout"
        case .notAPerc(let a, let services):
            "\(a) is not a PERC: it has none of the PERC GATT v1, MTK serial (ffe0) or Nordic UART services"
                + " (found: \(services.isEmpty ? "none" : services.joined(separator: ", ")))"
        case .failed(let a, let step, let e):
            "\(step) of \(a) failed: \(e)"
        }
    }
}
