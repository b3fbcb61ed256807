// `percbridge bench service` scaled down through the CLI: it runs every phase and prints sane figures.
import Foundation
import Testing

@Suite(.serialized) struct ServiceBenchTests {
    /// 2 PERCs, 2 fingers, 3 apps (one stalled), 2 s per phase: checks that the figures are
    /// there and consistent (frames, latency samples, nothing lost), never how fast they are.
    @Test func scaledDownBenchPrintsSaneFigures() async throws {
        let run = try await offPool {
            try CLI.run(["bench", "service", "--percs", "2", "--fingers", "2", "--clients", "3", "--seconds", "2", "--json"])
        }
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("Latency: emulator's notification send → TUIO packet"), "\(run.stdout)")
        let line = try #require(run.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON line: \(run.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let phases = try #require(report["phases"] as? [[String: Any]])
        #expect(phases.map { $0["name"] as? String } == ["idle", "load", "clients", "stalled", "latency"])
        for p in phases {
            let name = p["name"] as? String ?? "?"
            #expect(p["frames"] as? Int ?? 0 > 0, "\(name): serve sent TUIO frames")
            #expect(p["tuio_gaps"] as? Int == 0, "\(name): no TUIO frame lost")
            #expect(p["notifications_lost"] as? Int == 0, "\(name): no notification lost")
            #expect(p["serve_cpu_percent"] as? Double ?? 0 > 0, "\(name): serve's CPU time was read")
            #expect(p["rss_max_kib"] as? Int ?? 0 > 0, "\(name): serve's RSS was read")
            #expect(p["exit_status"] as? Int == 0, "\(name): serve ended cleanly on SIGTERM")
            if name != "idle" {
                #expect(p["links_up"] as? Int == 2, "\(name): both PERC links up")
                #expect(p["placed"] as? Int == 2, "\(name): both PERCs tracked after placing")
            }
        }
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
        let latency = try #require((phases.last?["latency"]) as? [String: Any])
        let total = try #require(latency["total"] as? [String: Any])
        #expect(total["n"] as? Int ?? 0 > 0, "latency samples")
        #expect(latency["lost"] as? Int == 0, "every field transition showed in TUIO and in serve's recording")
        #expect((total["p50_ms"] as? Double ?? 0) > 0 && (total["p50_ms"] as? Double ?? 0) <= (total["max_ms"] as? Double ?? 0))
        let link = try #require(latency["link"] as? [String: Any])
        let wait = try #require(latency["wait"] as? [String: Any])
        #expect(link["n"] as? Int == total["n"] as? Int && wait["n"] as? Int == total["n"] as? Int, "every sample split into parts")
    }
}
