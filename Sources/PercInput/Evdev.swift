// The evdev character device: open, the EVIOC* ioctls, and reading `struct input_event`s (raw libc, wrapped once).
import Glibc
import MTKTangibles

/// An open /dev/input/eventN. Everything above this file sees Swift values only.
public final class EvdevDevice: @unchecked Sendable {
    // @unchecked: the fd is only read by one reader thread; close() is called after it stopped.
    public let path: String
    public private(set) var fd: Int32

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    // _IOC(dir, 'E', nr, size) as on x86/arm (dir: 1 write, 2 read).
    static func ioc(_ dir: UInt, _ nr: UInt, _ size: Int) -> UInt { dir << 30 | UInt(size) << 16 | 0x45 << 8 | nr }
    static let inputEventSize = 24 // struct input_event on 64-bit: timeval(16) + u16 + u16 + s32

    /// Opens the node read-only and non-blocking (reads are driven by poll()).
    public init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            let hint = e == EACCES ? " (install udev/70-percbridge.rules and add the user to the `percbridge` group, or run as root)" : ""
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(e)))\(hint)")
        }
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
    }

    private func ioctlBuffer(_ request: UInt, _ buffer: UnsafeMutableRawPointer) -> Int32 {
        var rc: Int32
        repeat { rc = ioctl(fd, request, buffer) } while rc < 0 && errno == EINTR
        return rc
    }

    /// EVIOCGNAME.
    public func name() -> String {
        var buf = [UInt8](repeating: 0, count: 256)
        let rc = buf.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x06, 256), $0.baseAddress!) }
        guard rc >= 0 else { return "unnamed device" }
        return String(decoding: buf.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// EVIOCGID: bus, vendor, product, version.
    public func ids() -> (UInt16, UInt16, UInt16, UInt16)? {
        var id = [UInt16](repeating: 0, count: 4)
        let rc = id.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x02, 8), $0.baseAddress!) }
        return rc < 0 ? nil : (id[0], id[1], id[2], id[3])
    }

    /// EVIOCGBIT(type): the codes of `type` (type 0: the event types) as a set.
    public func bits(type: UInt16, maxCode: Int) -> Set<UInt16> {
        let bytes = (maxCode + 8) / 8
        var buf = [UInt8](repeating: 0, count: bytes)
        let rc = buf.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x20 + UInt(type), bytes), $0.baseAddress!) }
        guard rc >= 0 else { return [] }
        var out = Set<UInt16>()
        for (i, b) in buf.enumerated() { for bit in 0..<8 where b & (1 << bit) != 0 { out.insert(UInt16(i * 8 + bit)) } }
        return out
    }

    /// EVIOCGPROP: INPUT_PROP_* bits.
    public func properties() -> Set<Int> {
        var buf = [UInt8](repeating: 0, count: 8)
        let rc = buf.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x09, 8), $0.baseAddress!) }
        guard rc >= 0 else { return [] }
        var out = Set<Int>()
        for (i, b) in buf.enumerated() { for bit in 0..<8 where b & (1 << bit) != 0 { out.insert(i * 8 + bit) } }
        return out
    }

    /// EVIOCGABS(code).
    func absInfo(_ code: UInt16) -> AbsInfo? {
        var v = [Int32](repeating: 0, count: 6)
        let rc = v.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x40 + UInt(code), 24), $0.baseAddress!) }
        guard rc >= 0 else { return nil }
        return AbsInfo(value: v[0], minimum: v[1], maximum: v[2], fuzz: v[3], flat: v[4], resolution: v[5])
    }

    /// EVIOCGMTSLOTS(code): the value of `code` in every slot.
    func mtSlots(_ code: UInt16, slots: Int) -> [Int32]? {
        var v = [Int32](repeating: 0, count: slots + 1)
        v[0] = Int32(code)
        let rc = v.withUnsafeMutableBytes { ioctlBuffer(Self.ioc(2, 0x0a, (slots + 1) * 4), $0.baseAddress!) }
        return rc < 0 ? nil : Array(v.dropFirst())
    }

    /// EVIOCSCLOCKID(CLOCK_MONOTONIC): event times on the clock BLE arrivals use. False if refused.
    func useMonotonicClock() -> Bool {
        var clock = Int32(CLOCK_MONOTONIC)
        return withUnsafeMutableBytes(of: &clock) { ioctlBuffer(Self.ioc(1, 0xa0, 4), $0.baseAddress!) } >= 0
    }

    /// EVIOCGRAB: exclusive access (other readers, e.g. the desktop, stop seeing touches).
    public func grab(_ on: Bool) -> Bool {
        // EVIOCGRAB takes the int by value, not a pointer.
        var rc: Int32
        repeat { rc = ioctl(fd, Self.ioc(1, 0x90, 4), on ? 1 : 0) } while rc < 0 && errno == EINTR
        return rc >= 0
    }

    /// The device description from the ioctls (what evemu-describe prints).
    public func describe() -> DeviceDescription {
        var d = DeviceDescription(name: name())
        if let (b, v, p, ver) = ids() { (d.bus, d.vendor, d.product, d.version) = (b, v, p, ver) }
        d.properties = properties()
        let types = bits(type: 0, maxCode: 0x1f)
        for t in types.sorted() where t != 0 {
            let maxCode = t == EvdevCode.EV_KEY ? 0x2ff : (t == EvdevCode.EV_ABS ? Int(EvdevCode.ABS_MAX) : 0x0f)
            d.codes[t] = bits(type: t, maxCode: maxCode)
        }
        for code in d.codes[EvdevCode.EV_ABS] ?? [] {
            if let info = absInfo(code) { d.axes[code] = info }
        }
        return d
    }

    /// The current slot state for a resync after SYN_DROPPED.
    public func snapshot(slots: Int) -> MTSnapshot? {
        var out = Array(repeating: MTSlot(), count: slots)
        func fill(_ code: UInt16, _ set: (inout MTSlot, Int32) -> Void) -> Bool {
            guard let v = mtSlots(code, slots: slots) else { return false }
            for i in 0..<slots { set(&out[i], v[i]) }
            return true
        }
        guard fill(EvdevCode.ABS_MT_TRACKING_ID, { $0.trackingID = $1 }),
              fill(EvdevCode.ABS_MT_POSITION_X, { $0.x = $1 }),
              fill(EvdevCode.ABS_MT_POSITION_Y, { $0.y = $1 }) else { return nil }
        _ = fill(EvdevCode.ABS_MT_TOUCH_MAJOR, { $0.major = $1 })
        _ = fill(EvdevCode.ABS_MT_TOUCH_MINOR, { $0.minor = $1 })
        _ = fill(EvdevCode.ABS_MT_ORIENTATION, { $0.orientation = $1 })
        let current = Int(absInfo(EvdevCode.ABS_MT_SLOT)?.value ?? 0)
        return MTSnapshot(currentSlot: current, slots: out)
    }

    public enum ReadResult: Sendable { case events([InputEvent]), timeout, closed(String) }

    /// Waits up to `timeout` seconds for events and reads all that are ready.
    public func read(timeout: Double) -> ReadResult {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let rc = poll(&pfd, 1, Int32(max(0, timeout * 1000)))
        if rc == 0 { return .timeout }
        if rc < 0 { return errno == EINTR ? .timeout : .closed(String(cString: strerror(errno))) }
        if pfd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && pfd.revents & Int16(POLLIN) == 0 {
            return .closed("device went away")
        }
        var buf = [UInt8](repeating: 0, count: Self.inputEventSize * 64)
        let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if n < 0 {
            let e = errno
            if e == EAGAIN || e == EINTR { return .timeout }
            return .closed(e == ENODEV ? "device went away" : String(cString: strerror(e)))
        }
        if n == 0 { return .closed("end of file") }
        var events: [InputEvent] = []
        events.reserveCapacity(n / Self.inputEventSize)
        buf.withUnsafeBytes { raw in
            var o = 0
            while o + Self.inputEventSize <= n {
                let sec = raw.loadUnaligned(fromByteOffset: o, as: Int64.self)
                let usec = raw.loadUnaligned(fromByteOffset: o + 8, as: Int64.self)
                events.append(InputEvent(time: Double(sec) + Double(usec) / 1e6,
                                         type: raw.loadUnaligned(fromByteOffset: o + 16, as: UInt16.self),
                                         code: raw.loadUnaligned(fromByteOffset: o + 18, as: UInt16.self),
                                         value: raw.loadUnaligned(fromByteOffset: o + 20, as: Int32.self)))
                o += Self.inputEventSize
            }
        }
        return .events(events)
    }
}
