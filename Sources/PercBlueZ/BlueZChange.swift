// What changed in the mirror of BlueZ's object tree (told to listeners after the update).
import PercSystem

/// One change of the mirror, delivered after the mirror has been updated.
public enum BlueZChange: Sendable {
    case interfacesAdded(DBusObjectPath, [String])
    /// Interfaces removed from an object (the whole subtree when an adapter goes).
    case interfacesRemoved(DBusObjectPath, [String])
    /// `arrival`: CLOCK_MONOTONIC seconds when the signal came off the bus socket.
    case propertiesChanged(DBusObjectPath, interface: String, changed: BlueZ.Properties, invalidated: [String], arrival: Double)
    /// bluetoothd left the bus: every link is gone and the mirror is empty.
    case bluetoothdVanished
    /// A fresh snapshot of the tree was taken (at start and after bluetoothd returned).
    case snapshotTaken
    /// The notification socket AcquireNotify gave for this characteristic hung up (the link
    /// went, or bluetoothd released it): not a change of the tree, but links waiting on the
    /// mirror must look again.
    case notifySocketClosed(DBusObjectPath)
}
