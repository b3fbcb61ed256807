// `percbridge input list --follow`: prints touchscreens as udev reports them plugged in and removed.
import Foundation
import Synchronization
import PercSystem

/// Runs a `TouchscreenMonitor` (sd-device monitor) and prints one line per touchscreen
/// added or removed until `duration` has passed (nil: until the process is stopped).
/// Text lines are `added|removed<TAB>node<TAB>name`; JSON lines
/// `{"action":"add"|"remove","devnode":…,"name":…,"syspath":…}`.
/// "following touchscreen hotplug" goes to stderr once the monitor listens.
public enum TouchscreenFollower {
    struct Line: Codable, Equatable {
        var action: String
        var devnode: String
        var name: String
        var syspath: String
    }

    public static func run(json: Bool, duration: Double?) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let monitor = try TouchscreenMonitor { added, info in
            let line = Line(action: added ? "add" : "remove", devnode: info.devnode, name: info.name, syspath: info.syspath)
            let text = json ? String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self)
                : "\(added ? "added" : "removed")\t\(info.devnode)\t\(info.name)"
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
        monitor.start()
        defer { monitor.stop() }
        FileHandle.standardError.write(Data("following touchscreen hotplug\n".utf8))
        // The monotonic clock: a wall-clock step (NTP) must not cut the duration short or stretch it.
        let end = duration.map { MonotonicClock.now() + $0 } ?? .infinity
        while MonotonicClock.now() < end { Thread.sleep(forTimeInterval: min(0.1, max(0, end - MonotonicClock.now()))) }
    }
}
