// The --html report is self-contained and renders in headless chromium (DOM checked, screenshot saved).
import Foundation
import Testing
@testable import PercDiagnose
import PercTestSupport

@Suite struct DiagnoseHTMLTests {
    @Test func theReportIsSelfContained() throws {
        let r = DiagnoseFixture.session.report
        let html = ReportHTML.render(r, suggestions: SuggestionRules.suggest(r, settings: DiagnoseSettings(), currentWindowMs: 200, currentFailures: 3))
        #expect(!html.contains("src=") && !html.contains("href=") && !html.contains("<script") && !html.contains("@import"))
        // Per PERC: a time line, the light and link latency histograms, the onset histogram.
        #expect(html.components(separatedBy: "<svg").count - 1 == 4 * r.tangibles.count)
        #expect(html.contains("recognition.time_window_ms"))
    }

    @Test(.enabled(if: Chromium.path != nil)) func theReportOpensInChromium() async throws {
        let dir = try DiagnoseFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try DiagnoseFixture.recording(in: dir)
        let html = dir.appendingPathComponent("report.html").path
        let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--html", html, "--suggest"]) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("HTML report: \(html)"))
        let url = URL(fileURLWithPath: html).absoluteString
        let dom = try await offPool { try Chromium.run(["--dump-dom"], url: url) }
        #expect(dom.contains("<section class=\"tangible\" id=\"tangible-1\">") && dom.contains("id=\"tangible-2\""))
        let bars = dom.components(separatedBy: "class=\"bar\"").count - 1
        let misses = DiagnoseFixture.session.report.tangibles.reduce(0) { $0 + $1.light.misses }
        #expect(bars >= 10, "histogram bars drawn: \(bars)")
        #expect(dom.components(separatedBy: "class=\"miss\"").count - 1 == misses, "one × per miss on the time lines")
        let shot = Chromium.artifacts.appendingPathComponent("diagnose-report.png")
        try? FileManager.default.removeItem(at: shot)
        _ = try await offPool { try Chromium.run(["--screenshot=\(shot.path)", "--window-size=1280,2400"], url: url) }
        let png = try Data(contentsOf: shot)
        #expect(png.count > 5000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        print("diagnose report screenshot: \(shot.path)")
    }
}
