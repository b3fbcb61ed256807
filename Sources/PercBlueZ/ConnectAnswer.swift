// What a Device1.Connect answer means for a PERC link (docs/bluez.md, "Reconnecting").
import Foundation
import PercSystem

/// BlueZ's answers to `Device1.Connect`, sorted by what a link does next. Real bluetoothd
/// 5.66 answers a connect to a paired LE device that is in the kernel's auto-connect list
/// (after a link loss or a bluetoothd restart) with `org.bluez.Error.Failed: Operation
/// already in progress`, not `InProgress`; both mean "it is being connected".
enum ConnectAnswer: Equatable, Sendable {
    case connected
    case alreadyConnected
    /// A connect is already pending (BlueZ's own, or an earlier one of ours): wait for Connected.
    case pending(String)
    /// The adapter is not powered or not ready: wait for Powered.
    case notReady
    /// The device object is no longer in the tree: look it up again.
    case gone
    /// Any other failure (le-connection-abort-by-local, page timeout, …): back off.
    case failed(String)
    /// We stopped waiting for the answer: bluetoothd, the adapter or the device changed
    /// under the pending call. Look again at once.
    case overtaken

    init(_ error: any Error) {
        guard let e = error as? DBusError else { self = .failed("\(error)"); return }
        let message = e.message.lowercased()
        switch e.name {
        case BlueZ.ErrorName.alreadyConnected:
            self = .alreadyConnected
        case BlueZ.ErrorName.inProgress:
            self = .pending("\(e.name)")
        case BlueZ.ErrorName.failed where message.contains("already in progress"):
            self = .pending("\(e.name): \(e.message)")
        case BlueZ.ErrorName.notReady:
            self = .notReady
        case BlueZ.ErrorName.doesNotExist, "org.freedesktop.DBus.Error.UnknownObject":
            self = .gone
        default:
            self = .failed("\(e.name): \(e.message)")
        }
    }
}
