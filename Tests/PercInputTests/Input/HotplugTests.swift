// The touchscreen hotplug monitor (sd-device monitor) of the real binary, fed real uevents by umockdev.
import Foundation
import Testing
@testable import PercInput
import PercTestSupport

/// umockdev's preload library turns the monitor's NETLINK_KOBJECT_UEVENT socket into a
/// Unix socket in the testbed; `umockdev_testbed_add_device`/`_uevent` in the (also
/// preloaded) Python driver send udev-format messages with credentials to it. So this runs
/// libsystemd's own receive path (message parsing, credential check, subsystem filter) and
/// our callback, without udevd or a kernel device.
@Suite(.serialized) struct HotplugTests {
    static let wrapper = "/usr/bin/umockdev-wrapper"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: wrapper) }

    @Test(.enabled(if: HotplugTests.available))
    func followReportsATouchscreenPluggedInAndRemovedAndIgnoresAKeyboard() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-hotplug-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let driver = dir.appendingPathComponent("driver.py")
        try HotplugDriverScript.source.write(to: driver, atomically: true, encoding: .utf8)
        let r = try await Helper.runAsync(Self.wrapper, [Helper.python, driver.path, CLI.binary.path,
                                                         "input", "list", "--follow", "--json", "--duration", "3"], timeout: 40)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let childOut = r.stdout.components(separatedBy: "--- child stdout\n").last?
            .components(separatedBy: "--- child stderr").first ?? ""
        let lines = childOut.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(TouchscreenFollower.Line.self, from: Data($0.utf8))
        }
        #expect(lines.map(\.action) == ["add", "remove"], "\(r.stdout)")
        #expect(lines.map(\.devnode) == ["/dev/input/event99", "/dev/input/event99"])
        #expect(lines.first?.name == "Hotplug Test Panel")
        #expect(lines.first?.syspath.hasSuffix("/input99/event99") == true)
        #expect(!childOut.contains("event98"), "the keyboard is not a touchscreen")
    }
}
