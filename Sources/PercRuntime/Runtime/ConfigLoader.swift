// Turns a TOML config text into a ServiceConfig, collecting every located problem.
import Foundation
import TOMLKit
import PercSystem
import PercInput

/// Parses and validates the config file; see docs/configuration.md for every key.
public enum ConfigLoader {
    /// Reads `path`; throws `ConfigError` listing each problem with its line and key.
    public static func load(path: String) throws -> ServiceConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(issues: [ConfigIssue(file: path, line: nil, key: "",
                problem: "cannot read the file (\(error.localizedDescription))",
                allowed: "a readable UTF-8 TOML file")])
        }
        return try parse(text: text, file: path)
    }

    public static func parse(text: String, file: String) throws -> ServiceConfig {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(issues: [ConfigIssue(file: file, line: e.source.begin.line, key: "",
                problem: "not valid TOML: \(e.description) (column \(e.source.begin.column))",
                allowed: "TOML 1.0 syntax, see docs/percbridge.example.toml")])
        }
        let lines = ConfigKeyLines(text: text)
        var issues: [ConfigIssue] = []
        var config = ServiceConfig()
        func reader(_ t: TOMLTable, _ path: String) -> ConfigTableReader {
            ConfigTableReader(table: t, path: path, file: file, lines: lines)
        }
        let top = reader(root, "")

        if let t = top.table("surface") {
            let r = reader(t, "surface")
            config.surface.name = r.string("name", default: config.surface.name)
            config.surface.widthMM = r.double("width_mm", in: 10...20000, unit: "mm", default: config.surface.widthMM)
            config.surface.heightMM = r.double("height_mm", in: 10...20000, unit: "mm", default: config.surface.heightMM)
            issues += r.finish()
        }
        if let t = top.table("clock") {
            let r = reader(t, "clock")
            config.clock.mode = r.choice("mode", default: config.clock.mode)
            config.clock.maxRateHz = r.double("max_rate_hz", in: 10...10000, unit: "Hz", default: config.clock.maxRateHz)
            config.clock.maxBurst = r.int("max_burst", in: 1...64, unit: "frames", default: config.clock.maxBurst)
            config.clock.rateHz = r.double("rate_hz", in: 1...1000, unit: "Hz", default: config.clock.rateHz)
            config.clock.followPresented = r.bool("follow_presented", default: config.clock.followPresented)
            issues += r.finish()
        }
        for (i, t) in (top.tables("input") ?? []).enumerated() {
            let r = reader(t, "input[\(i)]")
            let kind: ServiceConfig.Input.Kind? = r.optionalString("kind", allowed: kindNames).flatMap {
                if let k = ServiceConfig.Input.Kind(rawValue: $0) { return k }
                r.fail("kind", "\"\($0)\" is not an input kind", allowed: kindNames)
                return nil
            }
            var input = ServiceConfig.Input(kind: kind ?? .evdev)
            if kind == nil, !r.issues.contains(where: { $0.key.hasSuffix(".kind") }) {
                r.fail("kind", "missing: every [[input]] needs a kind", allowed: kindNames)
            }
            switch input.kind {
            case .evdev:
                input.path = r.string("device", allowed: "a device node such as \"/dev/input/event5\", or \"auto\"", default: "auto")
            case .recording:
                input.path = r.optionalString("file", allowed: "the path of a recording (percbridge --record)")
                if input.path == nil, kind != nil { r.fail("file", "missing: a recording input needs a file", allowed: "a path") }
            case .tuio:
                input.listen = r.hostPort("listen", default: HostPort(host: "127.0.0.1", port: 3333))
                input.tuioLimits = ServiceConfig.Input.readTUIOLimits(r)
            case .jsonTCP:
                input.listen = r.hostPort("listen", default: HostPort(host: "127.0.0.1", port: 3334))
            }
            issues += r.finish()
            config.inputs.append(input)
        }
        if let t = top.table("tuio") {
            let r = reader(t, "tuio")
            config.tuio.enabled = r.bool("enabled", default: config.tuio.enabled)
            config.tuio.targets = r.hostPorts("targets", default: config.tuio.targets)
            config.tuio.versions = r.choice("version", default: config.tuio.versions)
            config.tuio.source = r.string("source", default: config.tuio.source)
            config.tuio.maxDatagramBytes = r.int("max_datagram_bytes", in: 512...65000, unit: "bytes", default: config.tuio.maxDatagramBytes)
            issues += r.finish()
        }
        if let t = top.table("http") {
            let r = reader(t, "http")
            config.http.enabled = r.bool("enabled", default: config.http.enabled)
            config.http.bind = r.hostPort("bind", allowZeroPort: true, default: config.http.bind) ?? config.http.bind
            config.http.token = r.string("token", allowed: "at least 16 characters; required for non-loopback binds", default: "")
            config.http.maxMessageBytes = r.int("max_message_bytes", in: 1024...1_048_576, unit: "bytes", default: config.http.maxMessageBytes)
            config.http.acceptContacts = r.bool("accept_contacts", default: config.http.acceptContacts)
            config.http.allowedOrigins = r.strings("allowed_origins", allowed: "a list of origins such as [\"http://table.local:3000\"], or [\"*\"] for any page",
                                                   valid: ServiceConfig.HTTP.originProblem, default: config.http.allowedOrigins)
            config.http.maxApps = r.int("max_apps", in: 1...4096, unit: "apps", default: config.http.maxApps)
            config.http.maxConnections = r.int("max_connections", in: 16...65536, unit: "connections", default: config.http.maxConnections)
            config.http.pingIntervalSeconds = r.int("ping_interval_s", in: 1...3600, unit: "seconds", default: config.http.pingIntervalSeconds)
            if config.http.enabled, !config.http.bind.isLoopback, config.http.token.count < 16 {
                r.fail(t["token"] == nil ? "bind" : "token",
                       "binding to \(config.http.bind) (not loopback) needs a token of at least 16 characters",
                       allowed: "a loopback bind (127.0.0.1, ::1, localhost) or http.token = \"<16+ characters>\"")
            }
            issues += r.finish()
        }
        if let t = top.table("control") {
            let r = reader(t, "control")
            config.control.enabled = r.bool("enabled", default: config.control.enabled)
            config.control.bus = r.string("bus", allowed: "\"system\", \"session\" or a D-Bus address (unix:path=...)", default: config.control.bus)
            if !["system", "session"].contains(config.control.bus), !config.control.bus.contains(":") {
                r.fail("bus", "\"\(config.control.bus)\" is neither a bus name nor an address",
                       allowed: "\"system\", \"session\" or a D-Bus address (unix:path=...)")
            }
            issues += r.finish()
        }
        if let t = top.table("bluetooth") {
            let r = reader(t, "bluetooth")
            config.bluetooth.enabled = r.bool("enabled", default: config.bluetooth.enabled)
            config.bluetooth.bus = r.string("bus", allowed: busAllowed, default: config.bluetooth.bus)
            if (try? DBusBus(parsing: config.bluetooth.bus)) == nil {
                r.fail("bus", "\"\(config.bluetooth.bus)\" is neither a bus name nor an address", allowed: busAllowed)
            }
            config.bluetooth.adapter = r.string("adapter", allowed: "an adapter name such as \"hci0\", or \"any\"", default: config.bluetooth.adapter)
            if config.bluetooth.adapter != "any", !config.bluetooth.adapter.allSatisfy({ $0.isLetter || $0.isNumber }) || config.bluetooth.adapter.isEmpty {
                r.fail("adapter", "\"\(config.bluetooth.adapter)\" is not an adapter name", allowed: "an adapter name such as \"hci0\", or \"any\"")
            }
            config.bluetooth.acquireNotify = r.bool("acquire_notify", default: config.bluetooth.acquireNotify)
            config.bluetooth.maxBackoffS = r.double("max_backoff_s", in: 1...600, unit: "s", default: config.bluetooth.maxBackoffS)
            issues += r.finish()
        }
        if let t = top.table("recognition") {
            let r = reader(t, "recognition")
            config.recognition.timeWindowMS = r.double("time_window_ms", in: 10...2000, unit: "ms", default: config.recognition.timeWindowMS)
            config.recognition.markerToleranceMM = r.double("marker_tolerance_mm", in: 0.1...30, unit: "mm", default: config.recognition.markerToleranceMM)
            config.recognition.adaptTolerance = r.bool("adapt_tolerance", default: config.recognition.adaptTolerance)
            config.recognition.locateLoneTouches = r.bool("locate_lone_touches", default: config.recognition.locateLoneTouches)
            config.recognition.touchJitterMM = r.double("touch_jitter_mm", in: 0...10, unit: "mm", default: config.recognition.touchJitterMM)
            issues += r.finish()
        }
        if let t = top.table("light_checks") {
            let r = reader(t, "light_checks")
            config.lightChecks.enabled = r.bool("enabled", default: config.lightChecks.enabled)
            config.lightChecks.patchRadiusMM = r.double("patch_radius_mm", in: 1...30, unit: "mm", default: config.lightChecks.patchRadiusMM)
            config.lightChecks.maxCheckDurationMS = r.double("max_check_duration_ms", in: 100...60000, unit: "ms", default: config.lightChecks.maxCheckDurationMS)
            config.lightChecks.maxCheckSpeedMMPerS = r.double("max_check_speed_mm_per_s", in: 0...2000, unit: "mm/s", default: config.lightChecks.maxCheckSpeedMMPerS)
            config.lightChecks.stationaryIntervalMS = r.double("stationary_interval_ms", in: 100...60000, unit: "ms", default: config.lightChecks.stationaryIntervalMS)
            config.lightChecks.maxFailedStationary = r.int("max_failed_stationary", in: 1...20, unit: "checks", default: config.lightChecks.maxFailedStationary)
            issues += r.finish()
        }
        if let t = top.table("registry") {
            let r = reader(t, "registry")
            config.registry.path = r.string("path", allowed: "an absolute file path", default: config.registry.path)
            if !config.registry.path.hasPrefix("/") {
                r.fail("path", "\"\(config.registry.path)\" is not absolute", allowed: "an absolute file path")
            }
            issues += r.finish()
        }
        if let t = top.table("overlay") {
            let r = reader(t, "overlay")
            config.overlay = overlay(r)
            issues += r.finish()
        }
        issues = top.finish() + issues
        if !issues.isEmpty { throw ConfigError(issues: issues.sorted { ($0.line ?? 0) < ($1.line ?? 0) }) }
        return config
    }

    /// `[overlay]` (docs/overlay.md): where `percbridge overlay` puts the surface on the screen.
    private static func overlay(_ r: ConfigTableReader) -> ServiceConfig.Overlay {
        var o = ServiceConfig.Overlay()
        let backends = "\"auto\", \"x11\" or \"wayland\""
        o.backend = r.string("backend", allowed: backends, default: "auto")
        if !["auto", "x11", "wayland"].contains(o.backend) {
            r.fail("backend", "\"\(o.backend.prefix(40))\" is not a display backend", allowed: backends)
            o.backend = "auto"
        }
        o.display = r.string("display", allowed: "an X display such as \":0\" (with backend wayland: a Wayland display such as \"wayland-1\"), or empty for the session's", default: "")
        o.output = r.string("output", allowed: "an output name such as \"HDMI-1\" (xrandr or the compositor lists them)", default: "")
        func pixels(_ key: String, _ separator: Character, _ example: String) -> String {
            let v = r.string(key, allowed: "pixels as \(example)", default: "")
            guard let problem = ServiceConfig.Overlay.pairProblem(v, separator: separator) else { return v }
            r.fail(key, "\"\(v.prefix(40))\" \(problem)", allowed: "pixels as \(example)")
            return ""
        }
        o.origin = pixels("origin", ",", "\"0,0\"")
        o.size = pixels("size", "x", "\"1920x1080\"")
        let rotation = r.int("rotation", in: 0...270, unit: "degrees (0, 90, 180 or 270)", default: 0)
        if rotation % 90 == 0 { o.rotation = rotation } else {
            r.fail("rotation", "\(rotation) is not a multiple of 90", allowed: "0, 90, 180 or 270")
        }
        if !o.origin.isEmpty, o.size.isEmpty {
            r.fail("origin", "an origin needs a size", allowed: "size = \"WIDTHxHEIGHT\" with origin, or neither")
        }
        return o
    }

    private static let busAllowed = "\"system\", \"session\" or a D-Bus address (unix:path=...)"
    private static let kindNames = ServiceConfig.Input.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
}
