// The config file's keys, one row each: ConfigLoader reads by them; `config check`, the TOML editor and the docs share them.
import PercSystem
import PercInput

/// Every key of the config file (docs/configuration.md): its section, name, value kind and
/// bounds, and where it goes in `ServiceConfig`. `ConfigLoader.parse` walks the sections in
/// this order and each section's keys in theirs (problems on one line are listed in that
/// order); `diagnose --apply` (TOMLSettingEditor) edits only keys listed here, within their
/// bounds; ConfigSchemaTests holds the docs and the example config to it.
public enum ConfigSchema {
    static let sections: [ConfigSection] = [
        ConfigSection("surface", [
            .text("name", \.surface.name),
            .number("width_mm", \.surface.widthMM, 10...20000, "mm"),
            .number("height_mm", \.surface.heightMM, 10...20000, "mm"),
        ]),
        ConfigSection("clock", [
            .choice("mode", \.clock.mode),
            .number("max_rate_hz", \.clock.maxRateHz, 10...10000, "Hz"),
            .wholeNumber("max_burst", \.clock.maxBurst, 1...64, "frames"),
            .number("rate_hz", \.clock.rateHz, 1...1000, "Hz"),
            .bool("follow_presented", \.clock.followPresented),
        ]),
        .inputs,
        ConfigSection("tuio", [
            .bool("enabled", \.tuio.enabled),
            .hostPorts("targets", \.tuio.targets),
            .choice("version", \.tuio.versions),
            .text("source", \.tuio.source),
            .wholeNumber("max_datagram_bytes", \.tuio.maxDatagramBytes, 512...65000, "bytes"),
        ]),
        ConfigSection("http", [
            .bool("enabled", \.http.enabled),
            .hostPort("bind", \.http.bind, allowZeroPort: true),
            .text("token", \.http.token, allowed: "at least 16 characters; required for non-loopback binds"),
            .wholeNumber("max_message_bytes", \.http.maxMessageBytes, 1024...1_048_576, "bytes"),
            .bool("accept_contacts", \.http.acceptContacts),
            .texts("allowed_origins", \.http.allowedOrigins,
                   allowed: "a list of origins such as [\"http://table.local:3000\"], or [\"*\"] for any page",
                   check: ServiceConfig.HTTP.originProblem),
            .wholeNumber("max_apps", \.http.maxApps, 1...4096, "apps"),
            .wholeNumber("max_connections", \.http.maxConnections, 16...65536, "connections"),
            .wholeNumber("ping_interval_s", \.http.pingIntervalSeconds, 1...3600, "seconds"),
        ], check: { r, c in
            if c.http.enabled, !c.http.bind.isLoopback, c.http.token.count < 16 {
                r.fail(r.has("token") ? "token" : "bind",
                       "binding to \(c.http.bind) (not loopback) needs a token of at least 16 characters",
                       allowed: "a loopback bind (127.0.0.1, ::1, localhost) or http.token = \"<16+ characters>\"")
            }
        }),
        ConfigSection("control", [
            .bool("enabled", \.control.enabled),
            .text("bus", \.control.bus, allowed: busAllowed) {
                ["system", "session"].contains($0) || $0.contains(":") ? nil : "\"\($0)\" is neither a bus name nor an address"
            },
        ]),
        ConfigSection("bluetooth", [
            .bool("enabled", \.bluetooth.enabled),
            .text("bus", \.bluetooth.bus, allowed: busAllowed) {
                (try? DBusBus(parsing: $0)) != nil ? nil : "\"\($0)\" is neither a bus name nor an address"
            },
            .text("adapter", \.bluetooth.adapter, allowed: "an adapter name such as \"hci0\", or \"any\"") {
                $0 == "any" || (!$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber }) ? nil : "\"\($0)\" is not an adapter name"
            },
            .bool("acquire_notify", \.bluetooth.acquireNotify),
            .number("max_backoff_s", \.bluetooth.maxBackoffS, 1...600, "s"),
        ]),
        ConfigSection("recognition", [
            .number("time_window_ms", \.recognition.timeWindowMS, 10...2000, "ms"),
            .number("marker_tolerance_mm", \.recognition.markerToleranceMM, 0.1...30, "mm"),
            .bool("adapt_tolerance", \.recognition.adaptTolerance),
            .bool("locate_lone_touches", \.recognition.locateLoneTouches),
            .number("touch_jitter_mm", \.recognition.touchJitterMM, 0...10, "mm"),
        ]),
        ConfigSection("light_checks", [
            .bool("enabled", \.lightChecks.enabled),
            .number("patch_radius_mm", \.lightChecks.patchRadiusMM, 1...30, "mm"),
            .number("max_check_duration_ms", \.lightChecks.maxCheckDurationMS, 100...60000, "ms"),
            .number("max_check_speed_mm_per_s", \.lightChecks.maxCheckSpeedMMPerS, 0...2000, "mm/s"),
            .number("stationary_interval_ms", \.lightChecks.stationaryIntervalMS, 100...60000, "ms"),
            .wholeNumber("max_failed_stationary", \.lightChecks.maxFailedStationary, 1...20, "checks"),
            .number("display_refresh_hz", \.lightChecks.displayRefreshHz, 24...500, "Hz"),
            .number("ble_interval_ms", \.lightChecks.bleIntervalMS, 7.5...400, "ms"),
        ]),
        ConfigSection("registry", [
            .text("path", \.registry.path, allowed: "an absolute file path") { $0.hasPrefix("/") ? nil : "\"\($0)\" is not absolute" },
        ]),
        // docs/overlay.md: where `percbridge overlay` puts the surface on the screen.
        ConfigSection("overlay", [
            .text("backend", \.overlay.backend, allowed: "\"auto\", \"x11\" or \"wayland\"") {
                ["auto", "x11", "wayland"].contains($0) ? nil : "\"\($0.prefix(40))\" is not a display backend"
            },
            .text("display", \.overlay.display, allowed: "an X display such as \":0\" (with backend wayland: a Wayland display such as \"wayland-1\"), or empty for the session's"),
            .text("output", \.overlay.output, allowed: "an output name such as \"HDMI-1\" (xrandr or the compositor lists them)"),
            .text("origin", \.overlay.origin, allowed: "pixels as \"0,0\"") { pixels($0, ",") },
            .text("size", \.overlay.size, allowed: "pixels as \"1920x1080\"") { pixels($0, "x") },
            .wholeNumber("rotation", \.overlay.rotation, 0...270, "degrees (0, 90, 180 or 270)") {
                $0 % 90 == 0 ? nil : ("\($0) is not a multiple of 90", "0, 90, 180 or 270")
            },
        ], check: { r, c in
            if !c.overlay.origin.isEmpty, c.overlay.size.isEmpty {
                r.fail("origin", "an origin needs a size", allowed: "size = \"WIDTHxHEIGHT\" with origin, or neither")
            }
        }),
    ]

    /// `[[input]]` keys besides `kind`, in reading order, each with the kinds that read it.
    static let inputEntries: [(kinds: [ServiceConfig.Input.Kind], entry: ConfigEntry<ServiceConfig.Input>)] = [
        ([.evdev], .text("device", \.path, allowed: "a device node such as \"/dev/input/event5\", or \"auto\"", fallback: "auto")),
        ([.recording], ConfigEntry(name: "file", value: .text(allowed: recordingAllowed)) { r, input in
            input.path = r.optionalString("file", allowed: recordingAllowed)
            if input.path == nil { r.fail("file", "missing: a recording input needs a file", allowed: "a path") }
        }),
        ([.tuio], .hostPort("listen", \.listen, fallback: HostPort(host: "127.0.0.1", port: 3333))),
        // The bounds on what TUIO senders can make us keep (docs/security.md).
        ([.tuio], .number("source_timeout_s", \.tuioLimits.sourceTimeout, 0.1...60, "s")),
        ([.tuio], .wholeNumber("max_sources", \.tuioLimits.maxSources, 1...1024, "sources")),
        ([.tuio], .wholeNumber("max_traces_per_source", \.tuioLimits.maxTracesPerSource, 1...4096, "traces")),
        ([.tuio], .wholeNumber("max_traces", \.tuioLimits.maxTraces, 1...4096, "traces")),
        ([.tuio], .texts("allow_from", \.tuioLimits.allowFrom, allowed: "a list of sender IP addresses, e.g. [\"127.0.0.1\", \"::1\"]") {
            HostPort.isIPLiteral($0) ? nil : "is not an IP address"
        }),
        ([.jsonTCP], .hostPort("listen", \.listen, fallback: HostPort(host: "127.0.0.1", port: 3334))),
    ]

    /// `[[input]] kind`, read first: it decides which of `inputEntries` apply.
    static let inputKind = ConfigKey(section: "input", name: "kind",
                                     value: .choice(ServiceConfig.Input.Kind.allCases.map(\.rawValue)),
                                     inputKinds: ServiceConfig.Input.Kind.allCases)

    /// Every key of the file, sections in reading order (`[[input]] listen` once, with both its kinds).
    public static let keys: [ConfigKey] = {
        var out: [ConfigKey] = []
        for section in sections {
            guard section.isInputList else {
                out += section.entries.map { ConfigKey(section: section.name, name: $0.name, value: $0.value, inputKinds: []) }
                continue
            }
            out.append(inputKind)
            for (kinds, entry) in inputEntries {
                if let i = out.firstIndex(where: { $0.section == section.name && $0.name == entry.name }) {
                    out[i] = ConfigKey(section: section.name, name: entry.name, value: out[i].value, inputKinds: out[i].inputKinds + kinds)
                } else {
                    out.append(ConfigKey(section: section.name, name: entry.name, value: entry.value, inputKinds: kinds))
                }
            }
        }
        return out
    }()

    /// The key spelt `section.name` (`recognition.time_window_ms`), or nil.
    public static func key(_ dotted: String) -> ConfigKey? { keys.first { $0.dotted == dotted } }

    static let busAllowed = "\"system\", \"session\" or a D-Bus address (unix:path=...)"
    private static let recordingAllowed = "the path of a recording (percbridge --record)"

    private static func pixels(_ text: String, _ separator: Character) -> String? {
        ServiceConfig.Overlay.pairProblem(text, separator: separator).map { "\"\(text.prefix(40))\" \($0)" }
    }
}
