// Errors of the control API: an `org.percbridge.Error.*` name and a message that says what to do.
import PercSystem

/// A refused or failed control call. Crosses the bus as a D-Bus error named
/// `org.percbridge.Error.<kind>`; the CLI prints the message as it is.
struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        /// An argument is malformed (bad address, empty name, unknown kind).
        case InvalidArgument
        /// No tangible with that id, name or address in the registry.
        case UnknownTangible
        /// The name or the address belongs to another tangible.
        case NameTaken, AddressTaken
        /// Define found no usable traces (not three, not still).
        case NoTraces
        /// The three traces do not make a usable pattern (collinear, mixed devices).
        case BadPattern
        /// The tangible has no pose (calibrate needs it lying still on the surface).
        case NotOnSurface
        /// A PUC has no light sensor; a PERC needs its BLE address.
        case NotAPerc
        /// The PERC is not paired/connected.
        case NotPaired
        /// Another define, or a calibration of the same tangible, is running.
        case Busy
        /// The calibration ended without an offset.
        case CalibrationFailed
        /// Pairing through BlueZ failed (the message carries BlueZ's reason).
        case PairingFailed
        /// The BlueZ side failed otherwise (no bus, Bluetooth off, device not removed).
        case LinkFailed
        /// Did not finish in time.
        case Timeout
        /// This service cannot do that (e.g. no BlueZ links).
        case NotSupported
        /// The registry file could not be written.
        case RegistryWrite
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }

    var name: String { ControlAPI.errorPrefix + kind.rawValue }
    var description: String { message }
    var dbusError: DBusError { DBusError(name: name, message: message) }
}
