// The state of one multitouch slot (protocol B), in device units; trackingID −1 = empty.

/// One slot of an MT protocol B device.
public struct MTSlot: Hashable, Sendable, Codable {
    var trackingID: Int32 = -1
    public var x: Int32 = 0
    public var y: Int32 = 0
    public var major: Int32 = 0
    public var minor: Int32 = 0
    public var orientation: Int32 = 0

    public init(trackingID: Int32 = -1, x: Int32 = 0, y: Int32 = 0, major: Int32 = 0, minor: Int32 = 0, orientation: Int32 = 0) {
        self.trackingID = trackingID; self.x = x; self.y = y
        self.major = major; self.minor = minor; self.orientation = orientation
    }

    var isActive: Bool { trackingID >= 0 }
}

/// Slot state as re-read from the kernel after SYN_DROPPED (EVIOCGMTSLOTS per axis and
/// EVIOCGABS(ABS_MT_SLOT)), or injected by a test.
public struct MTSnapshot: Hashable, Sendable {
    var currentSlot: Int
    public var slots: [MTSlot]
    public init(currentSlot: Int, slots: [MTSlot]) { self.currentSlot = currentSlot; self.slots = slots }
}
