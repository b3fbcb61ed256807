// libsystemd sd-device: enumerate touchscreens (ID_INPUT_TOUCHSCREEN=1) and follow hotplug (wrapped once).
import CDBus
import Foundation
import Synchronization

/// A touchscreen udev knows about.
public struct TouchscreenInfo: Hashable, Sendable, Codable {
    public var devnode: String
    public var name: String
    public var syspath: String
}

/// Touchscreens as udev knows them (sd-device enumeration).
public enum SDDevice {
    public struct Failure: Error, CustomStringConvertible, Sendable { public var description: String }

    static func errorText(_ rc: Int32) -> String { String(cString: strerror(-rc)) }

    /// Every `/dev/input/event*` node with ID_INPUT_TOUCHSCREEN=1. `allowUninitialized` also
    /// lists devices udev has not processed (needed in containers and under umockdev).
    public static func touchscreens(allowUninitialized: Bool = false) throws -> [TouchscreenInfo] {
        var e: OpaquePointer?
        var rc = sd_device_enumerator_new(&e)
        guard rc >= 0, let e else { throw Failure(description: "sd_device_enumerator_new: \(errorText(rc))") }
        defer { sd_device_enumerator_unref(e) }
        rc = sd_device_enumerator_add_match_subsystem(e, "input", 1)
        guard rc >= 0 else { throw Failure(description: "sd-device match: \(errorText(rc))") }
        rc = sd_device_enumerator_add_match_property(e, "ID_INPUT_TOUCHSCREEN", "1")
        guard rc >= 0 else { throw Failure(description: "sd-device match: \(errorText(rc))") }
        if allowUninitialized { _ = sd_device_enumerator_allow_uninitialized(e) }
        var out: [TouchscreenInfo] = []
        var d = sd_device_enumerator_get_device_first(e)
        while let dev = d {
            if let info = info(dev) { out.append(info) }
            d = sd_device_enumerator_get_device_next(e)
        }
        return out.sorted { $0.devnode < $1.devnode }
    }

    /// The touchscreen info of an event node, or nil for other devices.
    static func info(_ dev: OpaquePointer) -> TouchscreenInfo? {
        var node: UnsafePointer<CChar>?
        guard sd_device_get_devname(dev, &node) >= 0, let node else { return nil }
        let devnode = String(cString: node)
        guard devnode.hasPrefix("/dev/input/event") else { return nil }
        var value: UnsafePointer<CChar>?
        guard sd_device_get_property_value(dev, "ID_INPUT_TOUCHSCREEN", &value) >= 0, let value, String(cString: value) == "1" else { return nil }
        var sys: UnsafePointer<CChar>?
        let syspath = sd_device_get_syspath(dev, &sys) >= 0 && sys != nil ? String(cString: sys!) : ""
        var name = devnode
        var parent: OpaquePointer?
        var n: UnsafePointer<CChar>?
        if sd_device_get_parent(dev, &parent) >= 0, let parent, sd_device_get_sysattr_value(parent, "name", &n) >= 0, let n {
            name = String(cString: n).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return TouchscreenInfo(devnode: devnode, name: name, syspath: syspath)
    }
}

/// Follows udev hotplug of touchscreens (sd_device_monitor on its own sd-event thread) and
/// calls `onChange(added, info)`: added true for `add`, false for `remove`.
public final class TouchscreenMonitor: @unchecked Sendable {
    // @unchecked: the C handles are touched only by the monitor thread after start().
    private var event: OpaquePointer?
    private var monitor: OpaquePointer?
    private let stopFlag = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    let onChange: @Sendable (Bool, TouchscreenInfo) -> Void

    public init(onChange: @escaping @Sendable (Bool, TouchscreenInfo) -> Void) throws {
        self.onChange = onChange
        var ev: OpaquePointer?, mon: OpaquePointer?
        var rc = sd_event_new(&ev)
        guard rc >= 0 else { throw SDDevice.Failure(description: "sd_event_new: \(SDDevice.errorText(rc))") }
        rc = sd_device_monitor_new(&mon)
        guard rc >= 0 else {
            sd_event_unref(ev)
            throw SDDevice.Failure(description: "sd_device_monitor_new: \(SDDevice.errorText(rc)) (no udev netlink access?)")
        }
        event = ev; monitor = mon
        _ = sd_device_monitor_filter_add_match_subsystem_devtype(mon, "input", nil)
        _ = sd_device_monitor_attach_event(mon, ev)
        rc = sd_device_monitor_start(mon, { _, dev, userdata in
            guard let dev, let userdata else { return 0 }
            let me = Unmanaged<TouchscreenMonitor>.fromOpaque(userdata).takeUnretainedValue()
            var action = sd_device_action_t(rawValue: 0)
            guard sd_device_get_action(dev, &action) >= 0 else { return 0 }
            let added = action == SD_DEVICE_ADD
            guard added || action == SD_DEVICE_REMOVE else { return 0 }
            if let info = SDDevice.info(dev) { me.onChange(added, info) }
            else if !added, var n = Optional(UnsafePointer<CChar>?.none), sd_device_get_devname(dev, &n) >= 0, let n,
                    String(cString: n).hasPrefix("/dev/input/event") {
                // Removed devices may have lost their properties: report the node anyway.
                me.onChange(false, TouchscreenInfo(devnode: String(cString: n), name: "", syspath: ""))
            }
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard rc >= 0 else { throw SDDevice.Failure(description: "sd_device_monitor_start: \(SDDevice.errorText(rc))") }
    }

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let t = Thread { [self] in
            ThreadName.setCurrent("pb-udev-monitor")
            while !stopFlag.load(ordering: .acquiring) { _ = sd_event_run(event, 200_000) }
            finished.signal()
        }
        t.start()
    }

    public func stop() {
        guard !stopFlag.exchange(true, ordering: .acquiringAndReleasing), started.load(ordering: .acquiring) else { return }
        finished.wait()
    }

    deinit {
        if let monitor { sd_device_monitor_unref(monitor) }
        if let event { sd_event_unref(event) }
    }
}
