// Reads `libinput record` YAML: the first multitouch device's description and its evdev events.

/// `libinput record` files: `version`, `ndevices`, `devices[]` each with `evdev` (name, id,
/// codes, absinfo `[min, max, fuzz, flat, resolution]`, properties) and `events`
/// (`- evdev: [[sec, usec, type, code, value], …]` per frame). Unknown keys are ignored;
/// malformed events are counted and skipped with their line.
enum LibinputRecordParser {
    /// Heuristic used by `RecordingLoader`: YAML with a top-level `devices:` key.
    static func looksLikeLibinputRecord(_ text: String) -> Bool {
        text.split(separator: "\n").prefix(200).contains { $0.hasPrefix("devices:") || $0.hasPrefix("ndevices:") }
    }

    public static func parse(_ text: String, sourceName: String) throws(RecordingError) -> EvdevRecording {
        let root: YAMLNode
        do { root = try LibinputYAML.parse(text) } catch { throw RecordingError("\(sourceName):\(error.line): not valid YAML: \(error.message)") }
        guard let version = root["version"]?.int else { throw RecordingError("\(sourceName): no `version:` key: not a libinput record file") }
        guard version == 1 else { throw RecordingError("\(sourceName): libinput record version \(version) is not supported (only 1)") }
        guard let devices = root["devices"]?.items, !devices.isEmpty else { throw RecordingError("\(sourceName): no `devices:` in the recording") }
        var bad = BadInputLog()
        var parsed: [(DeviceDescription, YAMLNode)] = []
        for dev in devices {
            guard let evdev = dev["evdev"] else { continue }
            parsed.append((describe(evdev, sourceName: sourceName, bad: &bad), dev))
        }
        guard let (device, node) = parsed.first(where: { $0.0.mtProtocol != .none }) ?? parsed.first else {
            throw RecordingError("\(sourceName): no device has an `evdev:` section")
        }
        var entries: [EvdevRecording.Entry] = []
        for frame in node["events"]?.items ?? [] {
            guard let list = frame["evdev"]?.items else { continue } // `libinput:` entries etc.
            for ev in list {
                let nums = ev.items?.compactMap(\.int) ?? []
                guard nums.count == 5, nums[0] >= 0, (0..<1_000_000).contains(nums[1]),
                      let type = UInt16(exactly: nums[2]), let code = UInt16(exactly: nums[3]), let value = Int32(exactly: nums[4]) else {
                    bad.record("malformed libinput record event", at: "\(sourceName):\(ev.line)", "expected [sec, usec, type, code, value]")
                    continue
                }
                entries.append(.init(event: InputEvent(time: Double(nums[0]) + Double(nums[1]) / 1_000_000, type: type, code: code, value: value), line: ev.line))
            }
        }
        return EvdevRecording(format: .libinputRecord, device: device, entries: entries, bad: bad, sourceName: sourceName)
    }

    static func describe(_ evdev: YAMLNode, sourceName: String, bad: inout BadInputLog) -> DeviceDescription {
        var d = DeviceDescription(name: evdev["name"]?.string ?? "unnamed device")
        if let id = evdev["id"]?.items?.compactMap(\.int), id.count == 4 {
            d.bus = UInt16(truncatingIfNeeded: id[0]); d.vendor = UInt16(truncatingIfNeeded: id[1])
            d.product = UInt16(truncatingIfNeeded: id[2]); d.version = UInt16(truncatingIfNeeded: id[3])
        }
        for (k, v) in evdev["codes"]?.pairs ?? [] {
            guard let type = UInt16(k) else { continue }
            d.codes[type] = Set((v.items ?? []).compactMap { $0.int.flatMap { UInt16(exactly: $0) } })
        }
        for (k, v) in evdev["absinfo"]?.pairs ?? [] {
            let n = v.items?.compactMap { $0.int.flatMap { Int32(exactly: $0) } } ?? []
            guard let code = UInt16(k), code <= EvdevCode.ABS_MAX, n.count == 5, n[0] <= n[1] else {
                bad.record("malformed absinfo", at: "\(sourceName):\(v.line)", "expected CODE: [min, max, fuzz, flat, resolution]")
                continue
            }
            d.axes[code] = AbsInfo(minimum: n[0], maximum: n[1], fuzz: n[2], flat: n[3], resolution: n[4])
        }
        d.properties = Set((evdev["properties"]?.items ?? []).compactMap { $0.int.map(Int.init) })
        return d
    }
}
