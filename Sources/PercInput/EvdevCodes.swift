// Linux input event type and code numbers the decoder uses (from linux/input-event-codes.h).

/// Event types and codes of the Linux input subsystem that matter for touchscreens.
public enum EvdevCode {
    public static let EV_SYN: UInt16 = 0x00, EV_KEY: UInt16 = 0x01, EV_ABS: UInt16 = 0x03, EV_MSC: UInt16 = 0x04
    public static let SYN_REPORT: UInt16 = 0, SYN_CONFIG: UInt16 = 1, SYN_MT_REPORT: UInt16 = 2, SYN_DROPPED: UInt16 = 3
    static let ABS_X: UInt16 = 0x00, ABS_Y: UInt16 = 0x01
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30, ABS_MT_TOUCH_MINOR: UInt16 = 0x31
    static let ABS_MT_WIDTH_MAJOR: UInt16 = 0x32, ABS_MT_WIDTH_MINOR: UInt16 = 0x33
    static let ABS_MT_ORIENTATION: UInt16 = 0x34
    public static let ABS_MT_POSITION_X: UInt16 = 0x35, ABS_MT_POSITION_Y: UInt16 = 0x36
    static let ABS_MT_TOOL_TYPE: UInt16 = 0x37, ABS_MT_BLOB_ID: UInt16 = 0x38
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39, ABS_MT_PRESSURE: UInt16 = 0x3a
    static let ABS_MT_DISTANCE: UInt16 = 0x3b, ABS_MT_TOOL_X: UInt16 = 0x3c, ABS_MT_TOOL_Y: UInt16 = 0x3d
    static let ABS_MAX: UInt16 = 0x3f
    static let INPUT_PROP_DIRECT: Int = 1

    /// The per-slot axes the decoder keeps, in the order of `MTSlot.values`.
    static let slotAxes: [UInt16] = [ABS_MT_TRACKING_ID, ABS_MT_POSITION_X, ABS_MT_POSITION_Y,
                                     ABS_MT_TOUCH_MAJOR, ABS_MT_TOUCH_MINOR, ABS_MT_ORIENTATION]

    static func absName(_ code: UInt16) -> String {
        switch code {
        case ABS_X: "ABS_X"
        case ABS_Y: "ABS_Y"
        case ABS_MT_SLOT: "ABS_MT_SLOT"
        case ABS_MT_TOUCH_MAJOR: "ABS_MT_TOUCH_MAJOR"
        case ABS_MT_TOUCH_MINOR: "ABS_MT_TOUCH_MINOR"
        case ABS_MT_ORIENTATION: "ABS_MT_ORIENTATION"
        case ABS_MT_POSITION_X: "ABS_MT_POSITION_X"
        case ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y"
        case ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID"
        default: "ABS_\(code)"
        }
    }
}
