// What an evdev device is: name, ids, properties, its absolute axes (from ioctls or a recording).

/// The static description of a touch device, as the kernel or a recording's header gives it.
public struct DeviceDescription: Hashable, Sendable, Codable {
    public var name: String
    public var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0
    /// INPUT_PROP_* bits that are set.
    public var properties: Set<Int> = []
    /// Supported codes per event type (EV_KEY → key codes, EV_ABS → axes...).
    public var codes: [UInt16: Set<UInt16>] = [:]
    /// absinfo per ABS_* code.
    public var axes: [UInt16: AbsInfo] = [:]

    public init(name: String) { self.name = name }

    func supports(type: UInt16, code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }

    /// Multitouch protocol of the device, judged from its axes.
    public enum MTProtocol: String, Sendable, Codable { case b = "B", a = "A", none }

    public var mtProtocol: MTProtocol {
        guard axes[EvdevCode.ABS_MT_POSITION_X] != nil, axes[EvdevCode.ABS_MT_POSITION_Y] != nil else { return .none }
        return axes[EvdevCode.ABS_MT_SLOT] != nil ? .b : .a
    }

    /// Number of slots (ABS_MT_SLOT max + 1), 0 without slots.
    public var slotCount: Int {
        guard let s = axes[EvdevCode.ABS_MT_SLOT], s.maximum >= 0 else { return 0 }
        return Int(s.maximum) + 1
    }

    var isDirect: Bool { properties.contains(EvdevCode.INPUT_PROP_DIRECT) }
}
