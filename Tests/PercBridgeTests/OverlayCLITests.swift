// `percbridge overlay` and `percbridge-overlay` as a user runs them: help, errors, and the
// whole drawing path end to end on a real X server (demo --display screen).
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct OverlayCLITests {
    static var overlayBinary: URL { CLI.binary.deletingLastPathComponent().appendingPathComponent("percbridge-overlay") }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-overlay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The environment of this test run without an X display.
    static var noDisplay: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        return env
    }

    @Test func helpTeachesWhereTheSurfaceIsAndWhoDraws() async throws {
        let r = try await offPool { try CLI.run(["overlay", "--help"]) }
        #expect(r.status == 0)
        for word in ["--output", "--size", "--rotation", "docs/overlay.md", "TUIO"] {
            #expect(r.stdout.contains(word), "help lacks \(word): \(r.stdout)")
        }
        let tool = try await Helper.runAsync(Self.overlayBinary.path, ["--help"])
        #expect(tool.status == 0 && tool.stdout.contains("stands by"), "\(tool.stdout)\(tool.stderr)")
    }

    @Test func withoutADisplayItSaysSoInOneLineAndExits69() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("pb.toml").path
        try "[http]\nbind = \"127.0.0.1:1\"\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try await offPool { try CLI.run(["overlay", "--config", cfg], environment: Self.noDisplay) }
        #expect(r.status == 69, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && r.stderr.contains("DISPLAY"), "one line naming DISPLAY: \(r.stderr)")
    }

    @Test func aWaylandSessionWithoutXSaysWhatToDo() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("pb.toml").path
        try "".write(toFile: cfg, atomically: true, encoding: .utf8)
        let env = Self.noDisplay.merging(["WAYLAND_DISPLAY": "wayland-0"]) { _, new in new }
        let r = try await offPool { try CLI.run(["overlay", "--config", cfg], environment: env) }
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("Wayland") && r.stderr.contains("XWayland"), "\(r.stderr)")
    }

    @Test func aBadOverlaySectionIsNamedByConfigCheck() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("pb.toml").path
        try "[overlay]\nsize = \"big\"\nrotation = 45\ncolour = 1\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try await offPool { try CLI.run(["config", "check", cfg]) }
        #expect(r.status == 78)
        for key in ["overlay.size", "overlay.rotation", "overlay.colour"] {
            #expect(r.stderr.contains(key), "config check names \(key): \(r.stderr)")
        }
        let overlay = try await offPool { try CLI.run(["overlay", "--config", cfg], environment: Self.noDisplay) }
        #expect(overlay.status == 78 && overlay.stderr.contains("overlay.size"), "\(overlay.stderr)")
    }

    /// `[overlay] backend` (and `--backend`) reach percbridge-overlay: with an X display in the
    /// environment that does not exist, "wayland" makes it try Wayland instead (and say so in
    /// one line, exit 69, since no compositor runs); a bad value is named by config check.
    @Test func theConfigsBackendReachesTheOverlay() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("pb.toml").path
        try "[overlay]\nbackend = \"wayland\"\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        var environment = Self.noDisplay
        environment["DISPLAY"] = ":987"
        environment["XDG_RUNTIME_DIR"] = dir.path
        environment["WAYLAND_DISPLAY"] = "pb-no-compositor-\(getpid())"
        let env = environment
        let wayland = try await offPool { try CLI.run(["overlay", "--config", cfg], environment: env) }
        #expect(wayland.status == 69 && wayland.stderr.contains("cannot connect to Wayland display pb-no-compositor"), "\(wayland.stderr)")
        let x11 = try await offPool { try CLI.run(["overlay", "--config", cfg, "--backend", "x11"], environment: env) }
        #expect(x11.status == 69 && x11.stderr.contains("cannot open X display :987"), "\(x11.stderr)")
        try "[overlay]\nbackend = \"mir\"\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let bad = try await offPool { try CLI.run(["config", "check", cfg]) }
        #expect(bad.status == 78 && bad.stderr.contains("overlay.backend") && bad.stderr.contains("\"wayland\""), "\(bad.stderr)")
    }

    @Test func aPercbridgeWithoutItsOverlaySaysHowToGetIt() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = dir.appendingPathComponent("percbridge")
        try FileManager.default.copyItem(at: CLI.binary, to: alone)
        let cfg = dir.appendingPathComponent("pb.toml").path
        try "".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try await offPool { try Helper.run(alone.path, ["overlay", "--config", cfg]) }
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.contains("percbridge-overlay, which is not beside") && r.stderr.contains("--product percbridge-overlay"), "\(r.stderr)")
        let demo = try await offPool { try Helper.run(alone.path, ["demo", "--display", "screen", "--duration", "1", "--http", "127.0.0.1:0"]) }
        #expect(demo.status == 69 && demo.stderr.contains("percbridge-overlay"), "\(demo.stderr)")
    }

    @Test func badFlagsAreRefusedBeforeAnythingStarts() async throws {
        let r = try await Helper.runAsync(Self.overlayBinary.path, ["--url", "http://127.0.0.1:8080/ws"])
        #expect(r.status == 64 && r.stderr.contains("ws://"), "\(r.stderr)")
        let rot = try await Helper.runAsync(Self.overlayBinary.path, ["--rotation", "45"])
        #expect(rot.status == 64 && rot.stderr.contains("0, 90, 180 or 270"), "\(rot.stderr)")
    }

    /// The whole path on a real X server: the demo plans checks, `percbridge-overlay` draws the
    /// patches over the screen and reports them presented, and the simulated light sensors read
    /// the real pixels under them (`demo --display screen`, through `percbridge-overlay pixels`).
    /// Checks must be confirmed and every PERC tracked within 2 mm of its truth.
    @Test func demoOnTheRealScreenConfirmsChecksDrawnByTheOverlay() async throws {
        let x = try Xvfb(width: 1280, height: 720)
        defer { x.stop() }
        let run = try Self.demoOnScreenTwiceIfNeeded(x, demo: [], overlay: [], seconds: 30)
        print("demo --display screen, full screen: \(run.summary); \(run.meanLine.trimmingCharacters(in: .whitespaces))")
        #expect(run.confirmed > 0, "no check confirmed through the real screen: \(run.summary)\noverlay: \(run.overlayLog)")
        #expect(run.meanMM <= 2, "\(run.meanLine)")
        #expect(run.text.contains(" 0 swapped"), "\(run.text)")
        #expect(run.overlayLog.contains("drawing the light-check overlay"), "the overlay drew: \(run.overlayLog)")
    }

    /// What `demo --display screen` with `percbridge-overlay` on `x` printed.
    struct ScreenDemoRun {
        var text: String
        var summary: String
        /// Light checks confirmed, from the summary.
        var confirmed: Int
        var meanLine: String
        /// Reported pose vs simulator truth, mean (mm).
        var meanMM: Double
        var overlayLog: String
    }

    /// `demoOnScreen`, run a second time (said on stdout) when the first run confirmed no check:
    /// in 1 of 4 full-suite runs on this machine one run rejected all its checks (0 confirmed,
    /// 3 rejected) while 6 runs alone confirmed 6–7 each; not understood yet. Two runs in a row
    /// without a confirmation still fail.
    static func demoOnScreenTwiceIfNeeded(_ x: Xvfb, demo extra: [String], overlay overlayArgs: [String], seconds: Int) throws -> ScreenDemoRun {
        let first = try demoOnScreen(x, demo: extra, overlay: overlayArgs, seconds: seconds)
        guard first.confirmed == 0 else { return first }
        print("demo --display screen confirmed nothing (\(first.summary)); running it once more. Overlay log: \(first.overlayLog)")
        return try demoOnScreen(x, demo: extra, overlay: overlayArgs, seconds: seconds)
    }

    /// Runs `demo --display screen` (plus `demo`) for `seconds` on `x` over a black root (the
    /// simulated display's background) and, once it listens, `percbridge-overlay --url …`
    /// (plus `overlay`); returns what the demo printed at its end.
    static func demoOnScreen(_ x: Xvfb, demo extra: [String], overlay overlayArgs: [String], seconds: Int) throws -> ScreenDemoRun {
        #expect(try x.run("/usr/bin/xsetroot", ["-solid", "black"]).status == 0)
        let demo = try TestProcess(CLI.binary.path, ["demo", "--display", "screen", "--duration", "\(seconds)", "--http", "127.0.0.1:0",
                                                     "--control-bus", "none", "--tuio-version", "1.1"] + extra,
                                   environment: ["DISPLAY": x.display])
        defer { demo.stop() }
        var url: String?
        var header: [String] = []
        while url == nil, let line = demo.readLine(timeout: 30) {
            header.append(line)
            if let r = line.range(of: "ws://") { url = String(line[r.lowerBound...].prefix { $0 != " " }) }
        }
        let ws = try #require(url, "the demo printed no app protocol address: \(header) \(demo.errorOutput())")
        let overlay = try TestProcess(overlayBinary.path, ["--url", ws] + overlayArgs, environment: ["DISPLAY": x.display])
        defer { overlay.stop() }
        var out: [String] = []
        while let line = demo.readLine(timeout: 60) { out.append(line) }
        overlay.stop()
        let text = out.joined(separator: "\n")
        let summary = try #require(out.first { $0.hasPrefix("demo summary:") }, "\(text)\n\(demo.errorOutput())")
        let confirmed = Int(summary.components(separatedBy: "light checks ").last?.split(separator: " ").first ?? "") ?? 0
        let meanLine = try #require(out.first { $0.contains("reported pose vs simulator truth: mean") })
        let mean = Double(meanLine.components(separatedBy: "mean ").last?.split(separator: " ").first ?? "") ?? .infinity
        return ScreenDemoRun(text: text, summary: summary, confirmed: confirmed, meanLine: meanLine, meanMM: mean,
                             overlayLog: overlay.errorOutput())
    }

    /// A free TCP port on loopback (bound and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// The service stops and starts again on the same port (a restart): the overlay clears its
    /// patches, says once that it cannot reach the service, reconnects and draws again.
    @Test func itReconnectsWhenTheServiceRestarts() async throws {
        let x = try Xvfb(width: 1000, height: 600)
        defer { x.stop() }
        try x.paintRootGrey()
        let port = try Self.freePort()
        // The crowded scenario has checks on screen most of the time: a screenshot catches a patch
        // even on a loaded machine (the default scenario's few short checks were missed once).
        let args = ["demo", "--display", "app", "--scenario", "crowded", "--duration", "60", "--http", "127.0.0.1:\(port)",
                    "--control-bus", "none"]
        let first = try TestProcess(CLI.binary.path, args)
        defer { first.stop() }
        #expect(first.readLine(timeout: 30)?.contains("PercBridge demo") == true)
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("overlay.log").path
        let overlay = try TestProcess("/bin/sh", ["-c", "exec \"$0\" --url ws://127.0.0.1:\(port)/ws 2>\"$1\"", Self.overlayBinary.path, log],
                                      environment: ["DISPLAY": x.display])
        defer { overlay.stop() }
        func logged() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        func count(_ s: String) -> Int { logged().components(separatedBy: s).count - 1 }
        #expect(Self.waitUntil(15) { count("drawing the light-check overlay") == 1 }, "\(logged())")
        // Patches appear while the demo's PERCs are checked.
        // Up to 40 s: in 1 of about 10 runs on this machine (the first after a build, twice) no
        // patch came within 20 s although the overlay was connected; not understood yet.
        let drawn = try x.screenshot(within: 40) { !Self.allGrey($0) }
        #expect(!Self.allGrey(drawn), "no patch was drawn: \(logged())")
        first.stop()
        #expect(Self.waitUntil(10) { count("cannot reach the service") == 1 }, "\(logged())")
        let away = try x.screenshot(within: 5) { Self.allGrey($0) }
        #expect(Self.allGrey(away), "patches left on screen while the service is away")
        let second = try TestProcess(CLI.binary.path, args)
        defer { second.stop() }
        #expect(Self.waitUntil(20) { count("drawing the light-check overlay") == 2 }, "no reconnect: \(logged())")
        #expect(count("cannot reach the service") == 1, "one warning per streak: \(logged())")
    }

    static func waitUntil(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() { if Date() > deadline { return false }; usleep(50_000) }
        return true
    }

    /// Every 5th pixel of the screen is the grey painted below (no patch anywhere).
    static func allGrey(_ image: XWDImage) -> Bool {
        for y in stride(from: 0, to: image.height, by: 5) {
            for x in stride(from: 0, to: image.width, by: 5) where image.rgb(x, y) != .grey50 { return false }
        }
        return true
    }
}
