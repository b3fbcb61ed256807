// `demo --display screen` with the surface on part of the screen: the simulated sensors read
// where the overlay draws (--screen-* flags, or [overlay] of a config), on a real X server.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct DemoScreenPlacementTests {
    /// The overlay puts the surface at 800x450+200+150 and the demo is told the same through a
    /// config's [overlay]: checks are confirmed through the real screen and every PERC is
    /// tracked within 2 mm of its truth.
    @Test func theDemoReadsTheScreenWhereTheOverlayPutTheSurface() async throws {
        let x = try Xvfb(width: 1280, height: 720)
        defer { x.stop() }
        #expect(try x.run("/usr/bin/xsetroot", ["-solid", "black"]).status == 0)
        let dir = try OverlayCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("percbridge.toml")
        try "[overlay]\norigin = \"200,150\"\nsize = \"800x450\"\n".write(to: config, atomically: true, encoding: .utf8)
        let demo = try TestProcess(CLI.binary.path, ["demo", "--display", "screen", "--screen-config", config.path, "--duration", "20",
                                                     "--http", "127.0.0.1:0", "--control-bus", "none", "--tuio-version", "1.1"],
                                   environment: ["DISPLAY": x.display])
        defer { demo.stop() }
        var url: String?
        var header: [String] = []
        while url == nil, let line = demo.readLine(timeout: 30) {
            header.append(line)
            if let r = line.range(of: "ws://") { url = String(line[r.lowerBound...].prefix { $0 != " " }) }
        }
        let ws = try #require(url, "the demo printed no app protocol address: \(header) \(demo.errorOutput())")
        let overlay = try TestProcess(OverlayCLITests.overlayBinary.path, ["--url", ws, "--origin", "200,150", "--size", "800x450"],
                                      environment: ["DISPLAY": x.display])
        defer { overlay.stop() }
        var out: [String] = []
        while let line = demo.readLine(timeout: 60) { out.append(line) }
        let text = out.joined(separator: "\n")
        overlay.stop()
        let summary = try #require(out.first { $0.hasPrefix("demo summary:") }, "\(text)\n\(demo.errorOutput())")
        let confirmed = Int(summary.components(separatedBy: "light checks ").last?.split(separator: " ").first ?? "") ?? 0
        #expect(confirmed > 0, "no check confirmed through the offset surface: \(summary)\noverlay: \(overlay.errorOutput())")
        let meanLine = try #require(out.first { $0.contains("reported pose vs simulator truth: mean") })
        let mean = Double(meanLine.components(separatedBy: "mean ").last?.split(separator: " ").first ?? "") ?? .infinity
        #expect(mean <= 2, "\(meanLine)")
        #expect(text.contains(" 0 swapped"), "\(text)")
        print("demo --display screen at 800x450+200+150: \(summary); \(meanLine.trimmingCharacters(in: .whitespaces))")
    }

    /// The placement flags are checked before anything starts.
    @Test func placementFlagsAreCheckedAndNeedTheScreen() throws {
        let alone = try CLI.run(["demo", "--screen-size", "800x450", "--duration", "1"])
        #expect(alone.status == 64 && alone.stderr.contains("go with --display screen"), "\(alone.stderr)")
        let turned = try CLI.run(["demo", "--display", "screen", "--screen-rotation", "45", "--duration", "1"])
        #expect(turned.status == 64 && turned.stderr.contains("0, 90, 180 or 270"), "\(turned.stderr)")
        let corner = try CLI.run(["demo", "--display", "screen", "--screen-origin", "10,10", "--duration", "1"])
        #expect(corner.status == 64 && corner.stderr.contains("--screen-origin needs --screen-size"), "\(corner.stderr)")
        let help = try CLI.run(["demo", "--help"])
        #expect(help.stdout.contains("--screen-config") && help.stdout.contains("[overlay]"), "\(help.stdout)")
    }
}
