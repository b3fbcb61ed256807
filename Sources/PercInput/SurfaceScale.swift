// Maps device units of an evdev device to millimetres on the surface.
import MTKTangibles

/// Device units → millimetres. Priority: a configured surface size (what the user measured)
/// wins, then the kernel's axis resolution; with neither, units are passed through as mm
/// and `source` says so (inspect output shows it).
public struct SurfaceScale: Hashable, Sendable, Codable {
    public enum Source: String, Sendable, Codable { case configured, resolution, unknown }

    public var minX: Double, minY: Double
    var mmPerUnitX: Double, mmPerUnitY: Double
    /// mm per unit of touch major/minor (their own resolution if set, else the X axis').
    var mmPerUnitMajor: Double
    /// Radians per orientation unit (the axis maximum is a quarter turn).
    var radiansPerOrientationUnit: Double?
    public var source: Source
    /// Surface size in mm (nil when unknown).
    public var size: Vec2?

    public init(device: DeviceDescription, surfaceSize: Vec2? = nil) {
        let x = device.axes[EvdevCode.ABS_MT_POSITION_X] ?? device.axes[EvdevCode.ABS_X] ?? AbsInfo(minimum: 0, maximum: 0)
        let y = device.axes[EvdevCode.ABS_MT_POSITION_Y] ?? device.axes[EvdevCode.ABS_Y] ?? AbsInfo(minimum: 0, maximum: 0)
        minX = Double(x.minimum); minY = Double(y.minimum)
        let spanX = Double(x.maximum) - Double(x.minimum), spanY = Double(y.maximum) - Double(y.minimum)
        if let s = surfaceSize, s.x > 0, s.y > 0, spanX > 0, spanY > 0 {
            mmPerUnitX = s.x / spanX; mmPerUnitY = s.y / spanY
            source = .configured; size = s
        } else if x.resolution > 0, y.resolution > 0 {
            mmPerUnitX = 1 / Double(x.resolution); mmPerUnitY = 1 / Double(y.resolution)
            source = .resolution; size = Vec2(x: spanX * mmPerUnitX, y: spanY * mmPerUnitY)
        } else {
            mmPerUnitX = 1; mmPerUnitY = 1; source = .unknown; size = nil
        }
        if let m = device.axes[EvdevCode.ABS_MT_TOUCH_MAJOR], m.resolution > 0, source != .configured {
            mmPerUnitMajor = 1 / Double(m.resolution)
        } else {
            mmPerUnitMajor = mmPerUnitX
        }
        if let o = device.axes[EvdevCode.ABS_MT_ORIENTATION], o.maximum > 0 {
            radiansPerOrientationUnit = (Double.pi / 2) / Double(o.maximum)
        } else {
            radiansPerOrientationUnit = nil
        }
    }

    public func position(x: Int32, y: Int32) -> Vec2 {
        Vec2(x: (Double(x) - minX) * mmPerUnitX, y: (Double(y) - minY) * mmPerUnitY)
    }
}
