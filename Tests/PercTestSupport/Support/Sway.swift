// Test harness: a private headless sway (wlroots, pixman renderer) with its own runtime dir, ended by pid; grim screenshots.
import Foundation
import Glibc

/// A headless `sway` for one test: `outputs` virtual outputs (HEADLESS-1, HEADLESS-2, …) of
/// `width`×`height` side by side from x = 0, no XWayland, no input devices, the pixman renderer (no
/// GPU), in a runtime directory of its own (mode 0700) whose `wayland-N` socket is `display`.
///
/// sway refuses to start as root ("Unable to drop root … refusing to start": it checks that it
/// cannot regain root after dropping setuid), and tests run as root in CI: as root it is started
/// through `setpriv` as the unprivileged uid/gid 65534 (nobody), which owns the runtime directory.
/// Clients running as root reach its socket all the same. Killed by pid in `stop()` and in `deinit`
/// (also when a test fails); its log stays in `log` for failure messages.
///
/// `nestedInWeston`: sway runs as a window of a headless weston (wlroots' Wayland backend, outputs
/// WL-1 …) instead of on headless outputs. wlroots 0.15's headless outputs send no present events,
/// so sway never answers wp_presentation there; nested, its outputs are presented when weston
/// presents its window, and sway answers with weston's timestamps (weston's clock, CLOCK_MONOTONIC_RAW).
public final class Sway: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    public let runtimeDir: String
    public let display: String
    public let width: Int
    public let height: Int
    public let outputs: Int
    private let process: Process
    private var weston: Process?
    private let directory: URL

    public static let unprivileged: UInt32 = 65534

    public init(width: Int = 640, height: Int = 480, outputs: Int = 1, nestedInWeston: Bool = false,
                executable: String = "/usr/bin/sway") throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PrivateBusError("\(executable) is missing: install the Debian package sway (scripts/setup does)")
        }
        self.width = width
        self.height = height
        self.outputs = outputs
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-sway-\(UUID().uuidString)")
        runtimeDir = directory.path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        let prefix = nestedInWeston ? "WL" : "HEADLESS"
        let config = (1...outputs).map { "output \(prefix)-\($0) mode \(width)x\(height) position \(($0 - 1) * width) 0\n" }.joined()
            + "xwayland disable\n"
        try config.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let logURL = directory.appendingPathComponent("sway.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        if asRoot {
            for path in [directory.path, directory.appendingPathComponent("config").path, logURL.path] {
                guard chown(path, Self.unprivileged, Self.unprivileged) == 0 else { throw PrivateBusError("cannot chown \(path): errno \(errno)") }
            }
        }
        chmod(directory.path, 0o700)
        let base = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path]
        func unprivileged(_ p: Process, _ executable: String, _ args: [String]) {
            if asRoot {
                p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                p.arguments = ["--reuid=\(Self.unprivileged)", "--regid=\(Self.unprivileged)", "--clear-groups", executable] + args
            } else {
                p.executableURL = URL(fileURLWithPath: executable)
                p.arguments = args
            }
        }
        var swayEnvironment = base.merging(["WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]) { _, new in new }
        if nestedInWeston {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/weston") else {
                throw PrivateBusError("/usr/bin/weston is missing: install the Debian package weston (scripts/setup does)")
            }
            // Not named wayland-*: the wait below looks for sway's socket.
            let w = Process()
            unprivileged(w, "/usr/bin/weston", ["--backend=headless-backend.so", "--socket=weston-0", "--width=\(width * outputs + 64)",
                                                "--height=\(height + 64)", "--idle-time=0"])
            w.environment = base
            w.standardOutput = try FileHandle(forWritingTo: logURL)
            w.standardError = try FileHandle(forWritingTo: logURL)
            try w.run()
            weston = w
            let socket = directory.appendingPathComponent("weston-0").path
            let until = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: socket), Date() < until, w.isRunning { usleep(20_000) }
            guard FileManager.default.fileExists(atPath: socket) else {
                kill(w.processIdentifier, SIGKILL)
                w.waitUntilExit()
                throw PrivateBusError("weston made no socket within 10 s")
            }
            swayEnvironment["WLR_BACKENDS"] = "wayland"
            swayEnvironment["WLR_WL_OUTPUTS"] = "\(outputs)"
            swayEnvironment["WAYLAND_DISPLAY"] = "weston-0"
        } else {
            swayEnvironment["WLR_BACKENDS"] = "headless"
            swayEnvironment["WLR_HEADLESS_OUTPUTS"] = "\(outputs)"
        }
        process = Process()
        unprivileged(process, executable, ["-c", directory.appendingPathComponent("config").path])
        process.environment = swayEnvironment
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        // The socket appears once sway listens; a screenshot works once its outputs are up.
        var socket: String?
        let deadline = Date().addingTimeInterval(10)
        while socket == nil, Date() < deadline, process.isRunning {
            socket = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            if socket == nil { usleep(20_000) }
        }
        guard let socket else {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            for p in [process, weston].compactMap({ $0 }) where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
            throw PrivateBusError("sway made no Wayland socket within 10 s: \(log.suffix(2000))")
        }
        display = socket
        var shot: Screenshot?
        while shot == nil, Date() < deadline { shot = try? screenshot(); if shot == nil { usleep(50_000) } }
        guard shot?.width == width * outputs else {
            stop()
            throw PrivateBusError("sway on \(socket) gave no \(width * outputs)×\(height) screenshot within 10 s")
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// sway's stdout and stderr so far.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("sway.log"), encoding: .utf8)) ?? ""
    }

    /// The environment for a client of this compositor: its socket, and no X display.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtimeDir
        env["WAYLAND_DISPLAY"] = display
        env["DISPLAY"] = nil
        return env
    }

    /// The socket's absolute path: what an in-process client passes to wl_display_connect, which
    /// takes it as is (a bare name is looked up in this process's XDG_RUNTIME_DIR).
    public var socketPath: String { runtimeDir + "/" + display }

    public func stop() {
        // SIGKILL: children inherit the test runner's blocked-signal mask, which blocks SIGTERM.
        for p in [process, weston].compactMap({ $0 }) where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// The whole layout as `grim` sees it (killed after `timeout` s).
    public func screenshot(timeout: Double = 5) throws -> Screenshot {
        let path = directory.appendingPathComponent("shot-\(UUID().uuidString).ppm").path
        defer { unlink(path) }
        let status = try run("/usr/bin/grim", ["-t", "ppm", path], timeout: timeout)
        guard status == 0, let data = FileManager.default.contents(atPath: path) else {
            throw PrivateBusError("grim on \(display) failed (status \(status))")
        }
        return try Screenshot(data)
    }

    /// Runs a short client of this compositor to its end (killed after `timeout` s): its status.
    public func run(_ executable: String, _ arguments: [String], timeout: Double = 10) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// A binary PPM (P6, maxval 255) as grim writes it: 8-bit RGB rows, top to bottom.
    public struct Screenshot: Sendable {
        public let width: Int
        public let height: Int
        private let rgb: [UInt8]

        public init(_ data: Data) throws {
            let bytes = [UInt8](data)
            // Header: "P6", width, height, maxval, separated by whitespace, then one whitespace byte.
            var fields: [String] = []
            var i = 0
            while fields.count < 4, i < bytes.count, i < 64 {
                while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
                let start = i
                while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D) { i += 1 }
                fields.append(String(decoding: bytes[start..<i], as: UTF8.self))
            }
            guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255",
                  w > 0, h > 0, bytes.count >= i + 1 + w * h * 3 else {
                throw PrivateBusError("not a P6 PPM of 8-bit RGB: \(fields)")
            }
            width = w
            height = h
            rgb = Array(bytes[(i + 1)..<(i + 1 + w * h * 3)])
        }

        /// The pixel at (x, y) as 0xRRGGBB; nil outside the image.
        public func rgb(_ x: Int, _ y: Int) -> UInt32? {
            guard x >= 0, y >= 0, x < width, y < height else { return nil }
            let o = (y * width + x) * 3
            return UInt32(rgb[o]) << 16 | UInt32(rgb[o + 1]) << 8 | UInt32(rgb[o + 2])
        }
    }
}
