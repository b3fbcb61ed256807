// A fake touchscreen for umockdev-run: device file, ioctl answers (-i) and an event script (-s), for
// /dev/input/event99. Used by the umockdev tests and by `percbridge-bench service`'s evdev phase.
import Foundation
import MTKTangibles
import PercInput

/// A temp folder with dev.umockdev, dev.ioctl and dev.script for /dev/input/event99.
public struct UmockdevTouchscreen {
    public static let umockdevRun = "/usr/bin/umockdev-run"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: umockdevRun) }
    /// The node the fake device appears as inside umockdev-run.
    public static let node = "/dev/input/event99"

    public let dir: URL
    public var device: String { dir.appendingPathComponent("dev.umockdev").path }
    public var ioctl: String { dir.appendingPathComponent("dev.ioctl").path }
    public var script: String { dir.appendingPathComponent("dev.script").path }

    /// `delays`: milliseconds before each frame is written; by default 300 before the first
    /// and the stamps' own spacing after (a test of stamps that jump gives its own).
    public init(name: String, axes: [(UInt16, AbsInfo)], frames: [[InputEvent]], delays: [Int]? = nil) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-umockdev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try """
        P: /devices/virtual/input/input99/event99
        N: input/event99
        E: DEVNAME=/dev/input/event99
        E: MAJOR=13
        E: MINOR=99
        E: SUBSYSTEM=input
        E: ID_INPUT=1
        E: ID_INPUT_TOUCHSCREEN=1
        A: dev=13:99

        P: /devices/virtual/input/input99
        E: SUBSYSTEM=input
        A: name=\(name)

        """.write(toFile: device, atomically: true, encoding: .utf8)
        // Buffer sizes must equal what EvdevDevice asks for, or umockdev does not answer.
        func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02X", $0) }.joined() }
        func bits(_ codes: [UInt16], _ n: Int) -> [UInt8] {
            var b = [UInt8](repeating: 0, count: n)
            for c in codes { b[Int(c) / 8] |= 1 << (c % 8) }
            return b
        }
        func le(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        var nameBytes = Array(name.utf8) + [0]
        nameBytes += [UInt8](repeating: 0, count: 256 - nameBytes.count)
        var lines = [
            "EVIOCGNAME(0) \(name.utf8.count + 1) \(hex(nameBytes))",
            "EVIOCGID 0 \(hex([0x18, 0, 0, 0, 0, 0, 0, 0]))",
            "EVIOCGPROP(0) 8 \(hex(bits([1], 8)))",
            "EVIOCGBIT(0) 4 \(hex(bits([0, 1, 3], 4)))",
            "EVIOCGBIT(1) 96 \(hex(bits([330], 96)))",
            "EVIOCGBIT(3) 8 \(hex(bits(axes.map(\.0), 8)))",
        ]
        for (code, a) in axes {
            lines.append("EVIOCGABS(\(code)) 0 \(hex([a.value, a.minimum, a.maximum, a.fuzz, a.flat, a.resolution].flatMap(le)))")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: ioctl, atomically: true, encoding: .utf8)
        // Script lines: `r <ms> <bytes>`, bytes <= 32 escaped as ^(b+64) and ^ as ^`.
        var script = Data()
        var previous: Double?
        for (i, f) in frames.enumerated() {
            var raw: [UInt8] = []
            for e in f {
                let sec = Int64(e.time.rounded(.down)), usec = Int64(((e.time - e.time.rounded(.down)) * 1e6).rounded())
                withUnsafeBytes(of: sec.littleEndian) { raw += $0 }
                withUnsafeBytes(of: usec.littleEndian) { raw += $0 }
                withUnsafeBytes(of: e.type.littleEndian) { raw += $0 }
                withUnsafeBytes(of: e.code.littleEndian) { raw += $0 }
                withUnsafeBytes(of: e.value.littleEndian) { raw += $0 }
            }
            let delay = delays.map { $0[i] } ?? previous.map { Int(((f[0].time - $0) * 1000).rounded()) } ?? 300
            previous = f[0].time
            script.append(contentsOf: Array("r \(max(delay, 0)) ".utf8))
            for b in raw {
                if b <= 32 { script.append(contentsOf: [UInt8(ascii: "^"), b + 64]) }
                else if b == UInt8(ascii: "^") { script.append(contentsOf: [UInt8(ascii: "^"), UInt8(ascii: "`")]) }
                else { script.append(b) }
            }
            script.append(UInt8(ascii: "\n"))
        }
        try script.write(to: URL(fileURLWithPath: self.script))
    }

    /// umockdev-run's arguments to run `command` with this device, its ioctl answers and (if
    /// `play`) its event script, which starts when the program opens the device.
    public func umockdevArguments(play: Bool = true, _ command: [String]) -> [String] {
        ["-d", device, "-i", "\(Self.node)=\(ioctl)"] + (play ? ["-s", "\(Self.node)=\(script)"] : []) + ["--"] + command
    }

    public func remove() { try? FileManager.default.removeItem(at: dir) }
}
