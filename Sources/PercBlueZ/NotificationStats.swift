// Counters of one PERC's notifications: what arrived, what was lost, what was rejected.

/// Per-device notification counters kept by the profile decoders (and shown by `monitor`).
public struct NotificationStats: Hashable, Sendable, Codable {
    /// Notifications (BLE values) received, valid or not.
    public var notifications = 0
    /// Sensor events made from them.
    public var events = 0
    /// Notifications missing according to sequence-number gaps (PERC GATT v1 only).
    public var lost = 0
    /// Notifications whose sequence number was not newer than the last one: repeated, or
    /// older arriving late (PERC GATT v1; ignored).
    public var duplicates = 0
    /// Values rejected as too short or of another major version (PERC GATT v1).
    public var rejected = 0
    /// Bytes skipped because they were no frame, and frames that did not parse (MTK serial).
    public var garbage = 0
    /// Frames of groups the bridge does not know (MTK serial), skipped.
    public var unknownGroups = 0

    mutating func add(_ other: NotificationStats) {
        notifications += other.notifications; events += other.events; lost += other.lost
        duplicates += other.duplicates; rejected += other.rejected; garbage += other.garbage
        unknownGroups += other.unknownGroups
    }
}
