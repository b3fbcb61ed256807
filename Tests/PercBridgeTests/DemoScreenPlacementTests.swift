// `demo --display screen` with the surface on part of the screen: the simulated sensors read
// where the overlay draws (--screen-* flags, or [overlay] of a config), on a real X server.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct DemoScreenPlacementTests {
    /// The overlay puts the surface at 1000x560+200+100 and the demo is told the same through a
    /// config's [overlay]: checks are confirmed through the real screen and every PERC is
    /// tracked within 2 mm of its truth.
    @Test func theDemoReadsTheScreenWhereTheOverlayPutTheSurface() async throws {
        let x = try Xvfb(width: 1280, height: 720)
        defer { x.stop() }
        let dir = try OverlayCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("percbridge.toml")
        try "[overlay]\norigin = \"200,100\"\nsize = \"1000x560\"\n".write(to: config, atomically: true, encoding: .utf8)
        let run = try OverlayCLITests.demoOnScreenTwiceIfNeeded(x, demo: ["--screen-config", config.path],
                                                   overlay: ["--origin", "200,100", "--size", "1000x560"], seconds: 30)
        #expect(run.confirmed > 0, "no check confirmed through the offset surface: \(run.summary)\noverlay: \(run.overlayLog)")
        #expect(run.meanMM <= 2, "\(run.meanLine)")
        #expect(run.text.contains(" 0 swapped"), "\(run.text)")
        print("demo --display screen at 1000x560+200+100: \(run.summary); \(run.meanLine.trimmingCharacters(in: .whitespaces))")
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
