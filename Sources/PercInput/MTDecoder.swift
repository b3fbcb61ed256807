// Decodes Linux multitouch protocol B event streams into ContactUpdates (pure; no I/O).
//
// Per frame the kernel sends ABS_MT_SLOT (when the slot changes), ABS_MT_TRACKING_ID
// (new id: contact begins; −1: it ends), the changed axes, then SYN_REPORT. We keep a
// committed copy of every slot and a pending copy the events modify; SYN_REPORT diffs the
// two and emits begin/move/end. The same diff resynchronises after SYN_DROPPED (libevdev's
// approach): the re-read kernel state becomes the pending copy and is committed.
import MTKTangibles

/// Decodes one device's multitouch protocol B events into `ContactUpdate`s, frame by frame
/// (SYN_REPORT), and resynchronises after SYN_DROPPED. Pure: the caller reads the device.
public struct MTDecoder: Sendable {
    public enum State: Hashable, Sendable {
        case normal
        /// After SYN_DROPPED: events are ignored up to the next SYN_REPORT.
        case dropping
        /// The drop ended; call `resync(with:...)` with the device's current state.
        case needsResync
        /// The device cannot be decoded (protocol A, or no MT axes): nothing is emitted.
        case unsupported(String)
    }

    public let device: DeviceDescription
    public let scale: SurfaceScale
    public let origin: InputOrigin
    /// Where events come from, for error locations (a file name or a device node).
    public var sourceName: String
    /// Whether a resync source exists (a live device). Recordings cannot resync: the drop is
    /// reported and decoding continues from the cached state.
    var canResync: Bool
    public private(set) var state: State = .normal
    private(set) var committed: [MTSlot]
    private var pending: [MTSlot]
    private(set) var currentSlot: Int
    private(set) var eventCount = 0
    private(set) var reportCount = 0
    private(set) var lastReportTime: Seconds = -.infinity
    public var bad: BadInputLog

    private let hasMajor: Bool, hasMinor: Bool, hasOrientation: Bool

    public init(device: DeviceDescription, origin: InputOrigin, surfaceSize: Vec2? = nil,
                sourceName: String = "", canResync: Bool = false, bad: BadInputLog = BadInputLog()) {
        self.device = device
        self.scale = SurfaceScale(device: device, surfaceSize: surfaceSize)
        self.origin = origin
        self.sourceName = sourceName.isEmpty ? device.name : sourceName
        self.canResync = canResync
        self.bad = bad
        let n = device.slotCount
        committed = Array(repeating: MTSlot(), count: n)
        pending = committed
        let initial = Int(device.axes[EvdevCode.ABS_MT_SLOT]?.value ?? 0)
        currentSlot = (0..<max(n, 1)).contains(initial) ? initial : 0
        hasMajor = device.axes[EvdevCode.ABS_MT_TOUCH_MAJOR] != nil
        hasMinor = device.axes[EvdevCode.ABS_MT_TOUCH_MINOR] != nil
        hasOrientation = device.axes[EvdevCode.ABS_MT_ORIENTATION] != nil
        switch device.mtProtocol {
        case .b: break
        case .a: markUnsupported("\(device.name) uses multitouch protocol A (no slots), which PercBridge does not decode", at: "device description")
        case .none: markUnsupported("\(device.name) has no multitouch axes (ABS_MT_POSITION_X/Y)", at: "device description")
        }
    }

    var isSupported: Bool { if case .unsupported = state { false } else { true } }

    private func location(line: Int) -> String {
        line > 0 ? "\(sourceName):\(line)" : "\(sourceName) event #\(eventCount)"
    }

    /// Counts one bad input at `line` (the location string is built only here, on error).
    private mutating func report(_ kind: String, line: Int, _ detail: String = "") {
        let where_ = location(line: line)
        bad.record(kind, at: where_, detail)
    }

    private mutating func markUnsupported(_ why: String, at location: String) {
        state = .unsupported(why)
        bad.record("unsupported device", at: location, why)
    }

    /// Feeds one event. Contact updates are appended to `out` at each SYN_REPORT.
    /// `line` locates the event in a recording (0 for live devices).
    public mutating func feed(_ e: InputEvent, arrival: Seconds, line: Int = 0, into out: inout [ContactUpdate]) {
        eventCount += 1
        switch state {
        case .unsupported: return
        case .needsResync:
            // The caller did not resync: continue from the cached state (reported once).
            report("SYN_DROPPED without resync", line: line, "slot state may be stale")
            state = .normal
        case .dropping:
            if e.type == EvdevCode.EV_SYN && e.code == EvdevCode.SYN_REPORT {
                pending = committed
                if canResync {
                    state = .needsResync
                } else {
                    report("SYN_DROPPED without resync", line: line, "recordings cannot re-read the device; slot state may be stale")
                    state = .normal
                }
            }
            return
        case .normal: break
        }
        switch e.type {
        case EvdevCode.EV_SYN:
            switch e.code {
            case EvdevCode.SYN_REPORT: commit(time: e.time, arrival: arrival, line: line, into: &out)
            case EvdevCode.SYN_DROPPED:
                report("SYN_DROPPED", line: line, "the kernel's buffer overflowed; events were lost")
                state = .dropping
            case EvdevCode.SYN_MT_REPORT:
                let where_ = location(line: line)
                markUnsupported("SYN_MT_REPORT seen: \(device.name) speaks multitouch protocol A, which PercBridge does not decode", at: where_)
            default: break
            }
        case EvdevCode.EV_ABS: abs(e, line: line)
        default: break // EV_KEY (BTN_TOUCH...), EV_MSC (MSC_TIMESTAMP): not needed for contacts
        }
    }

    private mutating func abs(_ e: InputEvent, line: Int) {
        let code = e.code
        if code == EvdevCode.ABS_MT_SLOT {
            if e.value >= 0 && Int(e.value) < pending.count {
                currentSlot = Int(e.value)
            } else {
                report("slot out of range", line: line, "slot \(e.value) of \(pending.count)")
                currentSlot = -1
            }
            return
        }
        guard code >= EvdevCode.ABS_MT_TOUCH_MAJOR && code <= EvdevCode.ABS_MT_TOOL_Y else { return } // ABS_X/Y: legacy single touch
        guard currentSlot >= 0 else {
            report("event for an invalid slot", line: line, "\(EvdevCode.absName(code)) \(e.value)")
            return
        }
        let s = currentSlot
        if code == EvdevCode.ABS_MT_TRACKING_ID {
            if e.value == -1 {
                if pending[s].trackingID < 0 {
                    report("end of a contact that does not exist", line: line, "slot \(s)")
                }
                pending[s].trackingID = -1
            } else if e.value < -1 {
                report("negative tracking id", line: line, "\(e.value)")
            } else if e.value != pending[s].trackingID, pending.contains(where: { $0.trackingID == e.value }) {
                // The kernel keeps ids unique among live slots; a duplicate would merge two contacts.
                report("tracking id already in use", line: line, "id \(e.value) in slot \(s)")
            } else {
                pending[s].trackingID = e.value
            }
            return
        }
        guard pending[s].trackingID >= 0 else {
            report("slot without tracking id", line: line, "\(EvdevCode.absName(code)) \(e.value) in slot \(s)")
            return
        }
        if let info = device.axes[code], !info.contains(e.value) {
            report("value out of range", line: line, "\(EvdevCode.absName(code)) \(e.value) not in \(info.minimum)...\(info.maximum)")
            return
        }
        switch code {
        case EvdevCode.ABS_MT_POSITION_X: pending[s].x = e.value
        case EvdevCode.ABS_MT_POSITION_Y: pending[s].y = e.value
        case EvdevCode.ABS_MT_TOUCH_MAJOR: pending[s].major = e.value
        case EvdevCode.ABS_MT_TOUCH_MINOR: pending[s].minor = e.value
        case EvdevCode.ABS_MT_ORIENTATION: pending[s].orientation = e.value
        default: break
        }
    }

    private mutating func commit(time: Seconds, arrival: Seconds, line: Int, into out: inout [ContactUpdate]) {
        var t = time
        if !t.isFinite {
            report("non-finite time", line: line)
            t = lastReportTime.isFinite ? lastReportTime : 0
        } else if t < lastReportTime {
            // Keep contacts consistent (an end must not be lost): clamp, and report.
            report("time went backwards", line: line, "\(t) < \(lastReportTime)")
            t = lastReportTime
        }
        lastReportTime = t
        reportCount += 1
        // Ends first: an id freed in one slot may begin again in another in the same frame.
        for s in 0..<pending.count where committed[s].isActive && committed[s].trackingID != pending[s].trackingID {
            out.append(update(committed[s], .end, time: t, arrival: arrival))
        }
        for s in 0..<pending.count where pending[s] != committed[s] {
            let p = pending[s]
            if p.isActive { out.append(update(p, committed[s].trackingID != p.trackingID ? .begin : .move, time: t, arrival: arrival)) }
            committed[s] = p
        }
    }

    private func update(_ s: MTSlot, _ phase: ContactUpdate.Phase, time: Seconds, arrival: Seconds) -> ContactUpdate {
        ContactUpdate(
            origin: origin, contactID: Int64(s.trackingID), phase: phase,
            position: scale.position(x: s.x, y: s.y), raw: Vec2(x: Double(s.x), y: Double(s.y)),
            major: hasMajor ? Double(s.major) * scale.mmPerUnitMajor : nil,
            minor: hasMinor ? Double(s.minor) * scale.mmPerUnitMajor : nil,
            orientation: hasOrientation ? scale.radiansPerOrientationUnit.map { Double(s.orientation) * $0 } : nil,
            time: time, arrival: arrival)
    }

    /// The device went away (unplugged, or the reader stopped): an end for every contact
    /// still down, where it was last committed, so none stays on the surface for ever.
    public mutating func endAll(time: Seconds, arrival: Seconds, into out: inout [ContactUpdate]) {
        let t = Swift.max(time, lastReportTime.isFinite ? lastReportTime : time)
        for s in 0..<committed.count where committed[s].isActive {
            out.append(update(committed[s], .end, time: t, arrival: arrival))
            committed[s] = MTSlot()
        }
        pending = committed
    }

    /// After SYN_DROPPED (state `.needsResync`): the device's re-read state replaces the
    /// cache; slots whose tracking id changed end the old contact and begin the new one.
    mutating func resync(with snapshot: MTSnapshot, time: Seconds, arrival: Seconds, into out: inout [ContactUpdate]) {
        guard isSupported else { return }
        var seen = Set<Int32>()
        for s in 0..<min(snapshot.slots.count, pending.count) {
            var slot = snapshot.slots[s]
            if slot.trackingID < -1 { slot.trackingID = -1 }
            if slot.isActive, !seen.insert(slot.trackingID).inserted {
                report("tracking id already in use", line: 0, "id \(slot.trackingID) twice in the resync state")
                slot.trackingID = -1
            }
            pending[s] = slot
        }
        currentSlot = (0..<pending.count).contains(snapshot.currentSlot) ? snapshot.currentSlot : 0
        state = .normal
        commit(time: time, arrival: arrival, line: 0, into: &out)
    }
}
