// `percbridge bench service` (handed to percbridge-bench) scaled down through the CLI: it runs every phase and prints sane figures.
import Foundation
import Testing
@testable import PercBench
import PercTestSupport
import PercEmulator
import PercRuntime
import MTKTangibles

@Suite(.serialized) struct ServiceBenchTests {
    /// 2 PERCs, 2 fingers, 3 apps (one stalled), 2 s per phase, both clock modes: checks that
    /// the figures are there and consistent (frames, latency samples, nothing lost), never how
    /// fast they are.
    @Test func scaledDownBenchPrintsSaneFigures() async throws {
        let run = try await offPool {
            try CLI.run(["bench", "service", "--percs", "2", "--fingers", "2", "--clients", "3", "--seconds", "2", "--json"])
        }
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("Latency: emulator's notification send → TUIO packet"), "\(run.stdout)")
        #expect(run.stdout.contains("Touch latency: a probe finger's move"), "\(run.stdout)")
        #expect(run.stdout.contains("Sensor bursts: each PERC notification"), "\(run.stdout)")
        let line = try #require(run.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON line: \(run.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let all = try #require(report["phases"] as? [[String: Any]])
        let names = ["idle", "load", "clients", "stalled", "latency", "burst", "onebyone"] + (UmockdevTouchscreen.available ? ["evdev"] : [])
        #expect(all.map { "\($0["clock"] ?? "?") \($0["name"] ?? "?")" } == names.flatMap { ["events \($0)", "fixed \($0)"] },
                "every phase in both clock modes, side by side")
        for p in all {
            let name = "\(p["clock"] ?? "?") \(p["name"] ?? "?")"
            if name == "events idle" {
                #expect(p["frames"] as? Int == 0, "the event clock cuts no frame while nothing happens")
            } else {
                #expect(p["frames"] as? Int ?? 0 > 0, "\(name): serve sent TUIO frames")
                #expect(p["serve_cpu_percent"] as? Double ?? 0 > 0, "\(name): serve's CPU time was read")
            }
            #expect(p["tuio_gaps"] as? Int == 0, "\(name): no TUIO frame lost")
            #expect(p["notifications_lost"] as? Int == 0, "\(name): no notification lost")
            #expect(p["rss_max_kib"] as? Int ?? 0 > 0, "\(name): serve's RSS was read")
            #expect(p["exit_status"] as? Int == 0, "\(name): serve ended cleanly on SIGTERM")
            if p["name"] as? String != "idle" {
                #expect(p["links_up"] as? Int == 2, "\(name): both PERC links up")
                #expect(p["placed"] as? Int == 2, "\(name): both PERCs tracked after placing")
            }
            if ["burst", "onebyone"].contains(p["name"] as? String) {
                let burst = try #require(p["burst"] as? [String: Any], "\(name): notification → app measured")
                let notifications = burst["notifications"] as? Int ?? 0
                // 2 PERCs at 100 Hz for 2 s: 400 sent; the emulator's timers may fall behind.
                #expect(notifications > 100, "\(name): the PERCs' notifications were recorded: \(burst)")
                #expect(burst["not_seen_app"] as? Int == 0, "\(name): every notification's frame reached the app: \(burst)")
                for part in ["total", "link", "wait", "out"] {
                    #expect((burst[part] as? [String: Any])?["n"] as? Int == notifications, "\(name): \(part) for each notification")
                }
                let total = try #require(burst["total"] as? [String: Any])
                #expect((total["p50_ms"] as? Double ?? 0) > 0 && (total["p50_ms"] as? Double ?? 0) <= (total["max_ms"] as? Double ?? 0))
            }
            if ["load", "evdev"].contains(p["name"] as? String) {
                let touch = try #require(p["touch"] as? [String: Any], "\(name): touch latency measured")
                let moves = touch["moves"] as? Int ?? 0
                #expect(moves > 10, "\(name): the probe finger moved")
                #expect(touch["not_seen_tuio"] as? Int == 0 && touch["not_seen_app"] as? Int == 0,
                        "\(name): every move showed in TUIO and at the app: \(touch)")
                // A move umockdev wrote within one frame of the next is superseded, not lost: a
                // few under CI load, never most of them.
                #expect((touch["superseded"] as? Int ?? 0) * 10 <= moves, "\(name): \(touch)")
                #expect((touch["to_tuio"] as? [String: Any])?["n"] as? Int == moves)
                #expect((touch["to_app"] as? [String: Any])?["n"] as? Int == moves)
            }
        }
        for mode in ["events", "fixed"] {
        let phases = all.filter { $0["clock"] as? String == mode }
        let load = try #require(phases.first { $0["name"] as? String == "load" })
        #expect(load["notifications_per_s"] as? Double ?? 0 > 0, "the PERCs notified")
        for name in ["clients", "stalled"] {
            let p = try #require(phases.first { $0["name"] as? String == name })
            let upgraded = p["apps_upgraded"] as? Int
            #expect(upgraded == (name == "stalled" ? 2 : 3), "\(name): the reading apps completed the upgrade")
            #expect(p["app_frames"] as? Int ?? 0 > 0 && p["app_fps_min"] as? Double ?? 0 > 0, "\(name): every reading app got frames")
            let latency = p["app_latency"] as? [String: Any]
            #expect(latency?["n"] as? Int ?? 0 > 0, "\(name): app frame latency measured")
        }
        // The stalled app's dropped frames are not asserted: for 2 s the kernel's socket buffers
        // take everything it does not read (the full-size bench shows the drops).
        let latency = try #require((phases.first { $0["name"] as? String == "latency" }?["latency"]) as? [String: Any])
        let total = try #require(latency["total"] as? [String: Any])
        #expect(total["n"] as? Int ?? 0 > 0, "latency samples")
        #expect(latency["lost"] as? Int == 0, "every field transition showed in TUIO and in serve's recording")
        #expect((total["p50_ms"] as? Double ?? 0) > 0 && (total["p50_ms"] as? Double ?? 0) <= (total["max_ms"] as? Double ?? 0))
        let link = try #require(latency["link"] as? [String: Any])
        let wait = try #require(latency["wait"] as? [String: Any])
        #expect(link["n"] as? Int == total["n"] as? Int && wait["n"] as? Int == total["n"] as? Int, "every sample split into parts")
        }
    }

    /// Two evdev moves read together (umockdev wrote both before serve read) go into one frame:
    /// the evdev phase takes the frame each move was cut into from serve's recording, so the
    /// first counts as superseded, not as unseen, whatever the tick's time was.
    @Test func recordedContactsKnowTheFrameTheyWereCutInto() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-bench-frames-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try Recorder(path: path, header: RecordingHeader(writer: "test", surface: Vec2(1000, 500), sources: ["test"]))
        let clock = FrameClock(mode: .fixedRate(hz: 120), recorder: recorder)
        let panel = InputOrigin(kind: .evdev, device: "panel"), tuio = InputOrigin(kind: .tuio, device: "udp")
        func move(_ x: Double, at t: Seconds, from o: InputOrigin = panel) -> ContactUpdate {
            ContactUpdate(origin: o, contactID: 1, phase: .move, position: Vec2(x, 520), time: t, arrival: t)
        }
        clock.add(contacts: [move(101, at: 10), move(102, at: 10)])  // one read, two SYN_REPORTs
        _ = clock.cut(at: 10.001)
        clock.setDrawing(false)
        clock.add(contacts: [move(103, at: 10.02), move(500, at: 10.02, from: tuio)])
        _ = clock.cut(at: 10.021)
        clock.add(contacts: [move(104, at: 10.04)])
        _ = clock.cut(at: 10.041)
        clock.add(contacts: [move(105, at: 11)])  // after the window
        _ = clock.cut(at: 11.001)
        clock.stop()
        recorder.close()
        let contacts = try BenchEvdevProbe.recordedContacts(path: path, from: 10, to: 10.5)
        #expect(contacts.map(\.position.x) == [101, 102, 103, 104], "evdev moves in the window only")
        #expect(contacts.map(\.frame) == [0, 0, 1, 2], "101 and 102 were cut into one frame; a frame not drawn counts too")
        #expect(throws: (any Error).self) { try BenchEvdevProbe.recordedContacts(path: path + ".missing", from: 10, to: 10.5) }
    }

    @Test func badOptionsSayWhatIsAllowed() async throws {
        let clock = try CLI.run(["bench", "service", "--clock", "sometimes"])
        #expect(clock.status != 0 && clock.stderr.contains("--clock must be events, fixed or both"), "\(clock.stderr)")
        let phase = try CLI.run(["bench", "service", "--phases", "idle,warp"])
        #expect(phase.status != 0 && phase.stderr.contains("unknown phase warp"), "\(phase.stderr)")
        let rate = try CLI.run(["bench", "service", "--burst-rate", "0"])
        #expect(rate.status != 0 && rate.stderr.contains("--burst-rate must be in [1, 500] Hz"), "\(rate.stderr)")
        let binary = try CLI.run(["bench", "service", "--binary", "/nonexistent/percbridge"])
        #expect(binary.status != 0 && binary.stderr.contains("--binary /nonexistent/percbridge is not an executable file"), "\(binary.stderr)")
    }
}
