// The real device path (open, EVIOC* ioctls, read) of the real `percbridge` binary, against a
// fake touchscreen made by umockdev: device file, ioctl answers (-i) and an event script (-s).
import Foundation
import Testing
import MTKTangibles
@testable import PercBridge

@Suite(.serialized) struct UmockdevTests {
    static let umockdev = "/usr/bin/umockdev-run"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: umockdev) }

    /// A temp folder with dev.umockdev, dev.ioctl and dev.script for /dev/input/event99.
    struct Testbed {
        let dir: URL
        var device: String { dir.appendingPathComponent("dev.umockdev").path }
        var ioctl: String { dir.appendingPathComponent("dev.ioctl").path }
        var script: String { dir.appendingPathComponent("dev.script").path }

        init(name: String, axes: [(UInt16, AbsInfo)], frames: [[InputEvent]]) throws {
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
            for f in frames {
                var raw: [UInt8] = []
                for e in f {
                    let sec = Int64(e.time.rounded(.down)), usec = Int64(((e.time - e.time.rounded(.down)) * 1e6).rounded())
                    withUnsafeBytes(of: sec.littleEndian) { raw += $0 }
                    withUnsafeBytes(of: usec.littleEndian) { raw += $0 }
                    withUnsafeBytes(of: e.type.littleEndian) { raw += $0 }
                    withUnsafeBytes(of: e.code.littleEndian) { raw += $0 }
                    withUnsafeBytes(of: e.value.littleEndian) { raw += $0 }
                }
                let delay = previous.map { Int(((f[0].time - $0) * 1000).rounded()) } ?? 300
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

        func remove() { try? FileManager.default.removeItem(at: dir) }
    }

    @Test(.enabled(if: UmockdevTests.available))
    func watchReadsARealRecordingThroughTheDevicePath() async throws {
        // The Atmel 2-finger recording, with a resolution of 10 units/mm, played as a device.
        let rec = try RecordingLoader.load(path: Fixture.evemu("Atmel maXTouch Touchscreen.2-fingers-touch-release.events"))
        var axes = rec.device.axes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for i in axes.indices where axes[i].0 == EvdevCode.ABS_MT_POSITION_X || axes[i].0 == EvdevCode.ABS_MT_POSITION_Y { axes[i].1.resolution = 10 }
        // umockdev refuses EVIOCSCLOCKID, so events carry wall-clock times: stamp them from now.
        let base = Date().timeIntervalSince1970
        var frames: [[InputEvent]] = [], current: [InputEvent] = []
        for e in rec.entries.map(\.event) {
            current.append(InputEvent(time: base + e.time, type: e.type, code: e.code, value: e.value))
            if e.type == 0 && e.code == 0 { frames.append(current); current = [] }
        }
        let bed = try Testbed(name: "Atmel maXTouch Touchscreen", axes: axes, frames: frames)
        defer { bed.remove() }
        let r = try await Helper.runAsync(Self.umockdev, ["-d", bed.device, "-i", "/dev/input/event99=\(bed.ioctl)", "-s", "/dev/input/event99=\(bed.script)",
                                               "--", CLI.binary.path, "input", "watch", "/dev/input/event99", "--idle-timeout", "1.5", "--json"], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let decoder = JSONDecoder()
        let updates = r.stdout.split(separator: "\n").compactMap { try? decoder.decode(ContactUpdate.self, from: Data($0.utf8)) }
        let expected = RecordingDecoder.decode(EvdevRecording(format: .evemu, device: { var d = rec.device; for (c, a) in axes { d.axes[c] = a }; return d }(),
                                                              entries: rec.entries, bad: rec.bad, sourceName: "x"))
        #expect(updates.map(\.contactID) == expected.updates.map(\.contactID))
        #expect(updates.map(\.phase) == expected.updates.map(\.phase))
        #expect(updates.map(\.position) == expected.updates.map(\.position))
        let p0 = updates.first?.position ?? .zero // raw (539, 167) at 10 units/mm
        #expect(abs(p0.x - 53.9) < 1e-9 && abs(p0.y - 16.7) < 1e-9)
        #expect(updates.first?.origin == InputOrigin(kind: .evdev, device: "Atmel maXTouch Touchscreen"))
        // Kernel times (shifted onto CLOCK_MONOTONIC) keep the recorded spacing, and precede arrival.
        let span = (updates.last?.time ?? 0) - (updates.first?.time ?? 0)
        #expect(abs(span - 0.824235) < 0.001)
        #expect(updates.allSatisfy { $0.time <= $0.arrival + 0.05 && $0.arrival - $0.time < 5 })
        #expect(r.stderr.contains("protocol B, 10 slots"))
    }

    @Test(.enabled(if: UmockdevTests.available))
    func listFindsTheFakeTouchscreenOnlyWhenUninitializedDevicesAreAllowed() async throws {
        let bed = try Testbed(name: "PercBridge Test Panel", axes: [(EvdevCode.ABS_MT_SLOT, AbsInfo(minimum: 0, maximum: 1))], frames: [])
        defer { bed.remove() }
        let all = try await Helper.runAsync(Self.umockdev, ["-d", bed.device, "--", CLI.binary.path, "input", "list", "--uninitialized", "--json"])
        #expect(all.status == 0, "\(all.stderr)")
        let found = try JSONDecoder().decode([TouchscreenInfo].self, from: Data(all.stdout.utf8))
        #expect(found.map(\.devnode) == ["/dev/input/event99"])
        #expect(found.first?.name == "PercBridge Test Panel")
        let none = try await Helper.runAsync(Self.umockdev, ["-d", bed.device, "--", CLI.binary.path, "input", "list"])
        #expect(none.status == 0 && none.stdout.contains("No touchscreens found"))
    }

    @Test(.enabled(if: UmockdevTests.available))
    func aProtocolADeviceIsRefusedWithAClearMessage() async throws {
        let bed = try Testbed(name: "Old Panel", axes: [(EvdevCode.ABS_MT_POSITION_X, AbsInfo(minimum: 0, maximum: 100)), (EvdevCode.ABS_MT_POSITION_Y, AbsInfo(minimum: 0, maximum: 100))], frames: [])
        defer { bed.remove() }
        let r = try await Helper.runAsync(Self.umockdev, ["-d", bed.device, "-i", "/dev/input/event99=\(bed.ioctl)", "--", CLI.binary.path, "input", "watch", "/dev/input/event99", "--idle-timeout", "1"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("protocol A"))
    }
}
