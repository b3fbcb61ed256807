// Runs Debian's headless chromium against a local page (dump DOM, screenshot).
import Foundation

public enum Chromium {
    public static var path: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs chromium headless with `args` + `url`; returns stdout. Ends it by pid on timeout.
    public static func run(_ args: [String], url: String, timeout: TimeInterval = 60) throws -> String {
        guard let path else { throw CocoaError(.fileNoSuchFile) }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("pb-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
                       "--no-first-run", "--user-data-dir=\(profile.path)", "--window-size=1280,720"] + args + [url]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let pid = p.processIdentifier
        let killer = DispatchWorkItem { if p.isRunning { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        defer { killer.cancel(); if p.isRunning { kill(pid, SIGKILL) } }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Where tests leave screenshots for people to look at.
    public static var artifacts: URL {
        let dir = ProcessInfo.processInfo.environment["PERCBRIDGE_ARTIFACTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-artifacts")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
