// The real device path (open, EVIOC* ioctls, read) of the real `percbridge` binary, against a
// fake touchscreen made by umockdev: device file, ioctl answers (-i) and an event script (-s).
import Foundation
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport
import PercEmulator
import PercSystem

@Suite(.serialized) struct UmockdevTests {
    static let umockdev = "/usr/bin/umockdev-run"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: umockdev) }

    typealias Testbed = UmockdevTouchscreen

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
        // Kernel times (shifted onto CLOCK_MONOTONIC) keep the recorded spacing, and precede
        // arrival. umockdev's script player stamps each event when it writes it, so on a busy
        // machine the spacing stretches (full-suite runs: 15.9 ms, once 0.54 s over 0.82 s) but
        // never shrinks: the span is checked tightly from below only.
        let span = (updates.last?.time ?? 0) - (updates.first?.time ?? 0)
        #expect(span > 0.824235 - 0.03 && span < 0.824235 + 2, "span \(span) s")
        let outOfOrder = updates.first { !($0.time <= $0.arrival + 0.05 && $0.arrival - $0.time < 5) }
        #expect(outOfOrder == nil, "event time \(outOfOrder?.time ?? 0) vs arrival \(outOfOrder?.arrival ?? 0) (wall clock stepped?)")
        #expect(r.stderr.contains("protocol B, 10 slots"))
    }

    /// The wall clock stepping between the stamp and the read (CI once saw it go back 62 s in
    /// the middle of the replay above): events stamped 100 s ahead of it and then 100 s behind
    /// it keep every contact and come out at the time they were read, in order, and the log
    /// says why (at most a line a second).
    @Test(.enabled(if: UmockdevTests.available))
    func eventTimesOffTheWallClockAreStampedWhenRead() async throws {
        let axes: [(UInt16, AbsInfo)] = [
            (EvdevCode.ABS_MT_SLOT, AbsInfo(minimum: 0, maximum: 9)),
            (EvdevCode.ABS_MT_POSITION_X, AbsInfo(minimum: 0, maximum: 4000, resolution: 10)),
            (EvdevCode.ABS_MT_POSITION_Y, AbsInfo(minimum: 0, maximum: 3000, resolution: 10)),
            (EvdevCode.ABS_MT_TRACKING_ID, AbsInfo(minimum: 0, maximum: 65535)),
        ]
        let now = Date().timeIntervalSince1970
        // Frames 0–9 stamped 100 s ahead, 10–19 100 s behind, 20–29 right (read ~0.3 s after
        // they are made, plus 20 ms a frame: well within a second).
        var frames: [[InputEvent]] = []
        for n in 0..<30 {
            let t = now + 0.3 + Double(n) * 0.02 + (n < 10 ? 100 : n < 20 ? -100 : 0)
            var f = [InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_SLOT, value: 0)]
            if n == 0 { f.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_TRACKING_ID, value: 7)) }
            f.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_X, value: Int32(100 + 10 * n)))
            f.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_Y, value: 200))
            f.append(InputEvent(time: t, type: EvdevCode.EV_SYN, code: EvdevCode.SYN_REPORT, value: 0))
            frames.append(f)
        }
        let bed = try Testbed(name: "Stepped Clock Panel", axes: axes, frames: frames, delays: [300] + Array(repeating: 20, count: 29))
        defer { bed.remove() }
        let r = try await Helper.runAsync(Self.umockdev, bed.umockdevArguments([CLI.binary.path, "input", "watch", "/dev/input/event99", "--idle-timeout", "1", "--json"]), timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let updates = r.stdout.split(separator: "\n").compactMap { try? JSONDecoder().decode(ContactUpdate.self, from: Data($0.utf8)) }
        let xs: [Double] = (0..<30).map { (n: Int) -> Double in Double(100 + 10 * n) / 10 }
        #expect(updates.filter { $0.phase != .end }.map(\.position.x) == xs, "every frame's contact is kept")
        #expect(updates.last?.phase == .end, "and ends when the device goes idle")
        let off = updates.filter { !($0.time <= $0.arrival && $0.arrival - $0.time < WallClockEventTimes.maxAge) }
        #expect(off.isEmpty, "times off their arrival: \(off.map { $0.time - $0.arrival })")
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.time <= $1.time }, "times in order")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("s after the time they were read (the wall clock stepped?)") }, "\(r.stderr)")
        #expect(lines.filter { $0.contains("the wall clock stepped?") }.count <= 2, "said at most once a second: \(r.stderr)")
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
