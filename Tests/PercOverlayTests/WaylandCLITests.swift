// `percbridge-overlay` on Wayland as a user runs it: the backend it picks, the whole drawing path from
// the demo's plans to the compositor's screen, and the one-line refusals (exit 69).
import Foundation
import Glibc
import Testing
import PercTestSupport

extension WaylandTests {
    @Suite struct CLI {
        static var overlayBinary: String { PercTestSupport.CLI.binary.deletingLastPathComponent().appendingPathComponent("percbridge-overlay").path }

        /// Runs the overlay binary to its end (killed after `timeout` s): status and stderr.
        static func runOverlay(_ args: [String], environment: [String: String], timeout: Double = 10) throws -> (status: Int32, stderr: String) {
            let p = try TestProcess(overlayBinary, args, environment: environment)
            let deadline = Date().addingTimeInterval(timeout)
            while p.process.isRunning && Date() < deadline { usleep(10_000) }
            p.stop()
            return (p.process.terminationStatus, p.errorOutput())
        }

        /// WAYLAND_DISPLAY and no X display: the overlay draws through the layer shell. The demo plans
        /// light checks, the overlay draws them on the compositor's screen and reports them presented.
        /// (`crowded`: checks most of the time, so a screenshot every few hundred ms catches patches;
        /// the default scenario's few short checks were missed in one run of five.)
        @Test func withOnlyAWaylandDisplayTheDemosPatchesAppearOnTheCompositorsScreen() throws {
            let sway = try Sway(width: 1280, height: 720)
            let below = try sway.screenshot()
            let demo = try TestProcess(PercTestSupport.CLI.binary.path, ["demo", "--display", "app", "--scenario", "crowded", "--duration", "40",
                                                                         "--http", "127.0.0.1:0", "--control-bus", "none"])
            defer { demo.stop() }
            var url: String?
            while url == nil, let line = demo.readLine(timeout: 30) {
                if let r = line.range(of: "ws://") { url = String(line[r.lowerBound...].prefix { $0 != " " }) }
            }
            let ws = try #require(url, "the demo printed no app protocol address")
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-wl-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let log = dir.appendingPathComponent("overlay.log").path
            var env = sway.environment
            env["DISPLAY"] = ""
            let overlay = try TestProcess("/bin/sh", ["-c", "exec \"$0\" --url \"$1\" 2>\"$2\"", Self.overlayBinary, ws, log], environment: env)
            defer { overlay.stop() }
            func logged() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            #expect(waitUntil(timeout: 15) { logged().contains("drawing the light-check overlay") }, "\(logged())")
            #expect(logged().contains("drawing on Wayland \(sway.display) (layer shell, output HEADLESS-1)"), "\(logged())")
            // Patches appear while the demo's PERCs are checked: black or white pixels the screen did not have.
            var patches = 0
            _ = waitUntil(timeout: 20) {
                guard let shot = try? sway.screenshot() else { return false }
                patches = 0
                for y in stride(from: 0, to: shot.height, by: 2) {
                    for x in stride(from: 0, to: shot.width, by: 2) {
                        let c = shot.rgb(x, y)
                        if c != below.rgb(x, y), c == 0xFFFFFF || c == 0 { patches += 1 }
                    }
                }
                return patches > 0
            }
            #expect(patches > 0, "no patch on the screen: \(logged())")
            overlay.stop()
            #expect(!logged().contains("error"), "\(logged())")
        }

        /// The compositor is killed under a running overlay: it ends with one line and exit 69, as
        /// when an X server goes away (the user unit restarts it).
        @Test func aCompositorThatGoesAwayEndsTheOverlayWithOneLineAndExit69() throws {
            let sway = try Sway(width: 320, height: 240)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-wl-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let log = dir.appendingPathComponent("overlay.log").path
            let overlay = try TestProcess("/bin/sh", ["-c", "exec \"$0\" --url ws://127.0.0.1:1/ws --log-level error 2>\"$1\"", Self.overlayBinary, log],
                                          environment: sway.environment.merging(["DISPLAY": ""]) { _, new in new })
            defer { overlay.stop() }
            func logged() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            usleep(1_500_000)  // connected, surface up, retrying the absent service
            #expect(overlay.process.isRunning, "\(logged())")
            sway.stop()
            #expect(waitUntil(timeout: 5) { !overlay.process.isRunning }, "still running 5 s after the compositor went away")
            overlay.stop()
            #expect(overlay.process.terminationStatus == 69, "\(logged())")
            let lines = logged().split(separator: "\n").filter { $0.hasPrefix("percbridge-overlay: ") }
            #expect(lines.count == 1 && lines.first?.contains("lost Wayland display \(sway.display)") == true, "\(logged())")
        }

        @Test func aCompositorWithoutLayerShellIsRefusedInOneLineThatSaysWhatToDo() throws {
            let weston = try WestonWithoutLayerShell()
            defer { weston.stop() }
            var env = ProcessInfo.processInfo.environment
            env["DISPLAY"] = ""
            env["XDG_RUNTIME_DIR"] = weston.runtimeDir
            env["WAYLAND_DISPLAY"] = weston.display
            let r = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws"], environment: env)
            #expect(r.status == 69, "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
            for words in ["has no layer shell", "GNOME", "--display", "XWayland", "sway"] {
                #expect(r.stderr.contains(words), "\(words): \(r.stderr)")
            }
        }

        @Test func aWaylandDisplayWithNoCompositorIsRefusedInOneLine() throws {
            var env = ProcessInfo.processInfo.environment
            env["DISPLAY"] = ""
            env["XDG_RUNTIME_DIR"] = FileManager.default.temporaryDirectory.path
            env["WAYLAND_DISPLAY"] = "pb-no-compositor-\(getpid())"
            let r = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws"], environment: env)
            #expect(r.status == 69, "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("cannot connect to Wayland display pb-no-compositor"), "\(r.stderr)")
        }

        /// The backend choice: an X display (here one that does not exist) wins over WAYLAND_DISPLAY
        /// unless --backend wayland says otherwise.
        @Test func anXDisplayWinsUnlessTheBackendIsNamed() throws {
            let sway = try Sway(width: 320, height: 240)
            var env = sway.environment
            env["DISPLAY"] = ":987"
            let x = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws"], environment: env)
            #expect(x.status == 69 && x.stderr.contains("cannot open X display :987"), "\(x.stderr)")
            let w = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws", "--backend", "wayland", "--log-level", "info"], environment: env, timeout: 2)
            #expect(w.stderr.contains("drawing on Wayland \(sway.display)"), "\(w.stderr)")
            // The same through the environment (`percbridge overlay` and the user unit pass no --backend).
            var byEnv = env
            byEnv["PERCBRIDGE_OVERLAY_BACKEND"] = "wayland"
            let e = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws"], environment: byEnv, timeout: 2)
            #expect(e.stderr.contains("drawing on Wayland \(sway.display)"), "\(e.stderr)")
            byEnv["PERCBRIDGE_OVERLAY_BACKEND"] = "wl"
            let bad = try Self.runOverlay(["--url", "ws://127.0.0.1:1/ws"], environment: byEnv)
            #expect(bad.status == 64 && bad.stderr.contains("PERCBRIDGE_OVERLAY_BACKEND=wl: use auto, x11 or wayland"), "\(bad.stderr)")
            env["DISPLAY"] = ""
            let pixels = try Self.runOverlay(["pixels", "--surface-mm", "100x100"], environment: env)
            #expect(pixels.status == 69 && pixels.stderr.contains("X11 only"), "\(pixels.stderr)")
        }
    }
}

/// weston 10's headless backend: a real compositor without zwlr_layer_shell_v1 (as GNOME), killed by pid.
final class WestonWithoutLayerShell {
    let runtimeDir: String
    let display = "wayland-pb"
    private let process: Process

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/weston") else {
            throw PrivateBusError("/usr/bin/weston is missing: install the Debian package weston (scripts/setup does)")
        }
        runtimeDir = FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-weston-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: runtimeDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/weston")
        process.arguments = ["--backend=headless-backend.so", "--socket=\(display)", "--width=320", "--height=240", "--idle-time=0", "--shell=kiosk-shell.so"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": runtimeDir, "XDG_RUNTIME_DIR": runtimeDir]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let socket = runtimeDir + "/" + display
        guard waitUntil(timeout: 10, { FileManager.default.fileExists(atPath: socket) }) else {
            stop()
            throw PrivateBusError("weston made no socket \(socket) within 10 s")
        }
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    deinit { stop() }
}
