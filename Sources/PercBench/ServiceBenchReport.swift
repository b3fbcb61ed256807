// `bench service`: prints the phases' figures as tables (and, with --json, as one JSON object).
import Foundation
import Histogram

struct BenchReport {
    let results: [BenchPhaseResult]
    let rate: Double

    private func f(_ v: Double, _ d: Int = 1) -> String { String(format: "%.\(d)f", v) }
    private func ms(_ h: Histogram<UInt64>, _ p: Double) -> String {
        h.totalCount == 0 ? "-" : f(Double(h.valueAtPercentile(p)) / 1e6, 2)
    }
    private func maxMs(_ h: Histogram<UInt64>) -> String { h.totalCount == 0 ? "-" : f(Double(h.maxRecorded) / 1e6, 2) }
    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    private func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

    private func describe(_ p: BenchPhase) -> String {
        var parts: [String] = []
        parts.append("\(p.percs) PERCs, \(p.fingers) fingers")
        if p.clients > 0 { parts.append(p.stalled ? "\(p.clients) apps (1 stalled)" : "\(p.clients) apps") }
        if p.touchProbe { parts.append("probe finger, 1 app") }
        if p.latency { parts.append("--record, field cycles") }
        if p.evdev { parts.append("--record, umockdev probe, 1 app") }
        if let b = p.burst { parts.append(b == .together ? "--record, bursts, 1 app" : "--record, streams apart, 1 app") }
        return "\(p.name): " + parts.joined(separator: ", ")
    }

    private var modes: [String] { results.map(\.phase.clock).reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }

    func print(json: Bool) {
        Swift.print("")
        Swift.print("serve, per phase (figures over the measuring window; load = 1-min load average before→after; 2 cores shared)")
        Swift.print(pad("clock", 7) + pad("phase", 52) + lpad("fps", 7) + lpad("gaps", 6) + lpad("CPU %", 8) + lpad("×idle", 7)
                    + lpad("RSS MiB start/max/end", 24) + lpad("notif/s", 9) + lpad("lost", 6) + lpad("tangibles", 10)
                    + lpad("emu CPU %", 10) + lpad("bench CPU %", 12) + "  load")
        for r in results {
            let idleCPU = results.first { $0.phase.name == "idle" && $0.phase.clock == r.phase.clock }?.servePercent ?? 0
            // An idle event clock costs ~0 CPU: a ratio to it says nothing (shown as "-").
            let ratio = idleCPU >= 0.5 ? f(r.servePercent / idleCPU) + "x" : "-"
            let rss = "\(f(Double(r.rssStartKiB) / 1024))/\(f(Double(r.rssMaxKiB) / 1024))/\(f(Double(r.rssEndKiB) / 1024))"
            Swift.print(pad(r.phase.clock, 7) + pad(describe(r.phase), 52) + lpad(f(r.tuio.fps), 7) + lpad("\(r.tuio.gaps)", 6) + lpad(f(r.servePercent), 8)
                        + lpad(ratio, 7) + lpad(rss, 24) + lpad(f(r.notificationsPerSecond, 0), 9) + lpad("\(r.notificationsLost)", 6)
                        + lpad("\(f(r.tuio.meanObjects))/\(r.phase.percs)", 10)
                        + lpad(f(BenchPhaseResult.percent(r.emulatorCPU, r.seconds)), 10)
                        + lpad(f(BenchPhaseResult.percent(r.benchCPU, r.seconds)), 12) + "  " + r.load)
        }
        Swift.print("fps: TUIO frames received per second (fixed clock \(f(rate, 0)) Hz; the event clock cuts a frame per input frame "
                    + "or sensor event, at most max_rate_hz); gaps: frames missing in the fseq sequence; "
                    + "tangibles: mean alive in TUIO / placed; lost: notifications lost (sequence gaps) per serve's /metrics.")

        let appPhases = results.filter { $0.clients != nil }
        if !appPhases.isEmpty {
            Swift.print("")
            Swift.print("WebSocket apps (the reading ones): frames received per second per app, and frame tick → received by the app")
            Swift.print(pad("clock", 7) + pad("phase", 10) + lpad("apps", 6) + lpad("fps min", 9) + lpad("fps median", 11) + lpad("p50 ms", 8)
                        + lpad("p99 ms", 8) + lpad("max ms", 8) + lpad("dropped for slow apps", 23) + lpad("apps at end", 12) + "  load")
            for r in appPhases {
                let c = r.clients!
                let fps = r.clientFPS
                Swift.print(pad(r.phase.clock, 7) + pad(r.phase.name, 10) + lpad("\(r.phase.clients)", 6) + lpad(fps.map { f($0.min) } ?? "-", 9)
                            + lpad(fps.map { f($0.median) } ?? "-", 11) + lpad(ms(c.latency, 50), 8) + lpad(ms(c.latency, 99), 8)
                            + lpad(maxMs(c.latency), 8) + lpad("\(r.appFramesDropped)", 23) + lpad("\(r.appClients)", 12) + "  " + r.load)
            }
            Swift.print("dropped: frames the service replaced in a slow app's latest-wins mailbox (percbridge_app_frames_dropped_total).")
        }

        printLatency()
        printTouchLatency()
        printBursts()
        if json { Swift.print(jsonLine()) }
    }

    /// One row per measured part, a column group per clock mode, and the p99 ratio fixed / events.
    private func table(_ title: String, _ rows: [(String, [String: Histogram<UInt64>])]) {
        Swift.print("")
        Swift.print(title)
        var head = pad("", 36)
        for m in modes { head += lpad("\(m): n", 13) + lpad("p50 ms", 8) + lpad("p99 ms", 8) + lpad("max ms", 8) }
        if modes.count == 2 { head += lpad("p99 \(modes[1])/\(modes[0])", 18) }
        Swift.print(head)
        for (name, byMode) in rows {
            var line = pad(name, 36)
            for m in modes {
                let h = byMode[m]
                line += lpad(h.map { "\($0.totalCount)" } ?? "-", 13) + lpad(h.map { ms($0, 50) } ?? "-", 8)
                    + lpad(h.map { ms($0, 99) } ?? "-", 8) + lpad(h.map { maxMs($0) } ?? "-", 8)
            }
            if modes.count == 2, let a = byMode[modes[0]], let b = byMode[modes[1]], a.totalCount > 0, b.totalCount > 0,
               a.valueAtPercentile(99) > 0 {
                line += lpad(f(Double(b.valueAtPercentile(99)) / Double(a.valueAtPercentile(99))) + "x", 18)
            }
            Swift.print(line)
        }
    }

    /// One histogram per clock mode: `part` of what `pick` holds in each phase (only the phases
    /// named `name`, if given; the first per mode).
    private func byClock<R>(_ name: String?, _ pick: (BenchPhaseResult) -> R?,
                            _ part: (R) -> Histogram<UInt64>) -> [String: Histogram<UInt64>] {
        var out: [String: Histogram<UInt64>] = [:]
        for r in results where name == nil || r.phase.name == name {
            if out[r.phase.clock] == nil, let v = pick(r) { out[r.phase.clock] = part(v) }
        }
        return out
    }

    private func printLatency() {
        let phases = results.filter { $0.latency != nil }
        guard !phases.isEmpty else { return }
        func by(_ part: (BenchLatency.Result) -> Histogram<UInt64>) -> [String: Histogram<UInt64>] { byClock(nil, \.latency, part) }
        table("Latency: emulator's notification send → TUIO packet received by the bench (same host); load "
              + phases.map { "\($0.phase.clock) \($0.load)" }.joined(separator: ", "), [
            ("total (field on + field off)", by(\.total)),
            ("  field on → tangible appears", by(\.fieldOn)),
            ("  field off → tangible leaves", by(\.fieldOff)),
            ("total excluding the wait", by(\.excludingWait)),
            ("  link: send → serve's arrival", by(\.link)),
            ("  wait: arrival → frame", by(\.wait)),
            ("  out: frame → TUIO received", by(\.out)),
        ])
        for r in phases {
            let l = r.latency!
            Swift.print("\(r.phase.clock): transitions sent \(l.requested), not seen in TUIO within 1 s: \(l.notSeenInTUIO), "
                        + "not found in serve's recording: \(l.notRecorded)")
        }
    }

    private func printTouchLatency() {
        let phases = results.filter { $0.touch != nil }
        guard !phases.isEmpty else { return }
        func by(_ name: String, _ part: (BenchTouchLatency) -> Histogram<UInt64>) -> [String: Histogram<UInt64>] { byClock(name, \.touch, part) }
        table("Touch latency: a probe finger's move → the first TUIO datagram / WebSocket frame showing it, received by the bench", [
            ("TUIO in (load): send → TUIO out", by("load", \.toTUIO)),
            ("TUIO in (load): send → WebSocket app", by("load", \.toApp)),
            ("evdev: serve's read → TUIO out", by("evdev", \.toTUIO)),
            ("evdev: serve's read → WebSocket app", by("evdev", \.toApp)),
        ])
        for r in phases {
            let t = r.touch!
            Swift.print("\(r.phase.clock) \(r.phase.name): \(t.moves) moves, not seen in TUIO within 1 s: \(t.notSeenInTUIO), "
                        + "not seen by the app: \(t.notSeenByApp)"
                        + (t.superseded > 0 ? ", superseded by the next read before any frame: \(t.superseded)" : "") + "; load \(r.load)")
        }
        Swift.print("TUIO in is timed from the bench's send call (loopback UDP in and out included); evdev from serve's own read "
                    + "of the event (its recording's arrival), since umockdev's script player writes the events.")
    }

    private func printBursts() {
        let phases = results.filter { $0.burst != nil }
        guard !phases.isEmpty else { return }
        func by(_ name: String, _ part: (BenchBurst.Result) -> Histogram<UInt64>) -> [String: Histogram<UInt64>] { byClock(name, \.burst, part) }
        var rows: [(String, [String: Histogram<UInt64>])] = []
        for (name, title) in [("burst", "all PERCs on one phase"), ("onebyone", "streams started apart")]
        where phases.contains(where: { $0.phase.name == name }) {
            rows += [
                ("\(name): send → app (\(title))", by(name, \.total)),
                ("  excluding the wait", by(name, \.excludingWait)),
                ("  link: send → serve's arrival", by(name, \.link)),
                ("  wait: arrival → frame", by(name, \.wait)),
                ("  out: frame → app received", by(name, \.out)),
            ]
        }
        table("Sensor bursts: each PERC notification (field and light) from the emulator's send to the WebSocket app's "
              + "receipt of the first frame carrying it", rows)
        for r in phases {
            let b = r.burst!
            Swift.print("\(r.phase.clock) \(r.phase.name): \(b.notifications) notifications in \(b.frames) frames "
                        + "(at most \(b.largestFrame) in one), not seen by the app within 1 s: \(b.notSeenByApp); load \(r.load)")
        }
        Swift.print("TUIO carries no sensor values: a notification shows in TUIO only when it changes what is on the surface "
                    + "(the latency phase's field transitions).")
    }

    private func jsonLine() -> String {
        func h(_ x: Histogram<UInt64>) -> [String: Any] {
            ["n": Int(x.totalCount), "p50_ms": Double(x.valueAtPercentile(50)) / 1e6,
             "p99_ms": Double(x.valueAtPercentile(99)) / 1e6, "max_ms": Double(x.maxRecorded) / 1e6]
        }
        var phases: [[String: Any]] = []
        for r in results {
            var p: [String: Any] = [
                "name": r.phase.name, "clock": r.phase.clock, "percs": r.phase.percs, "fingers": r.phase.fingers, "clients": r.phase.clients,
                "seconds": r.seconds, "frames": r.tuio.frames, "fps": r.tuio.fps, "tuio_gaps": r.tuio.gaps,
                "serve_cpu_percent": r.servePercent, "rss_max_kib": r.rssMaxKiB, "rss_end_kib": r.rssEndKiB,
                "notifications_per_s": r.notificationsPerSecond, "notifications_lost": r.notificationsLost,
                "links_up": r.linksUp, "placed": r.placed, "mean_tangibles": r.tuio.meanObjects,
                "load_before": r.loadBefore, "load_after": r.loadAfter, "exit_status": Int(r.exitStatus),
            ]
            if let c = r.clients {
                p["app_frames"] = c.framesPerClient.values.reduce(0, +)
                p["app_fps_min"] = r.clientFPS?.min ?? 0
                p["app_latency"] = h(c.latency)
                p["app_frames_dropped"] = r.appFramesDropped
                p["apps_upgraded"] = c.upgraded
            }
            if let l = r.latency {
                p["latency"] = ["total": h(l.total), "field_on": h(l.fieldOn), "field_off": h(l.fieldOff),
                                "excluding_wait": h(l.excludingWait), "link": h(l.link), "wait": h(l.wait), "out": h(l.out),
                                "requested": l.requested, "lost": l.lost] as [String: Any]
            }
            if let b = r.burst {
                p["burst"] = ["total": h(b.total), "excluding_wait": h(b.excludingWait), "link": h(b.link), "wait": h(b.wait),
                              "out": h(b.out), "notifications": b.notifications, "not_seen_app": b.notSeenByApp,
                              "frames": b.frames, "largest_frame": b.largestFrame] as [String: Any]
            }
            if let t = r.touch {
                p["touch"] = ["to_tuio": h(t.toTUIO), "to_app": h(t.toApp), "moves": t.moves,
                              "not_seen_tuio": t.notSeenInTUIO, "not_seen_app": t.notSeenByApp,
                              "superseded": t.superseded] as [String: Any]
            }
            phases.append(p)
        }
        let data = (try? JSONSerialization.data(withJSONObject: ["phases": phases], options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
