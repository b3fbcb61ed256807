// The kernel's `struct input_absinfo` for one absolute axis.

/// Range, noise and resolution of one absolute axis. `resolution` is units per mm for
/// positions (units per radian for orientation on some devices; 0 when unknown).
public struct AbsInfo: Hashable, Sendable, Codable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value; self.minimum = minimum; self.maximum = maximum
        self.fuzz = fuzz; self.flat = flat; self.resolution = resolution
    }

    public func contains(_ v: Int32) -> Bool { v >= minimum && v <= maximum }
}
