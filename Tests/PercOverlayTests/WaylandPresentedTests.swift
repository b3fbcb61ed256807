// Each committed frame is reported once, with its serial and a CLOCK_MONOTONIC time after its show.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension WaylandTests {
    @Suite struct Presented {
        @Test func eachReportCarriesItsSerialAndAMonotonicTimeBetweenItsShowAndOneRefreshAfterItsReport() throws {
            let sway = try Sway(width: 320, height: 240)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            // Headless sway 1.7 announces wp_presentation but never answers it: frame callbacks time the frames.
            #expect(overlay.timing == .estimate, "headless sway answered wp_presentation: update this test and docs/overlay.md")
            let period = 1 / (overlay.output.refreshHz ?? 60)

            let (all, shownAt) = showOneThenABurst(on: overlay, reports: reports)
            for report in all {
                let before = try #require(shownAt[report.serial])
                // The estimate is the frame callback plus one period: never before the show plus a
                // period, at most one period after the test got it (both on CLOCK_MONOTONIC).
                #expect(report.at >= before + period, "serial \(report.serial) presented \(report.at - before) s after its show()")
                #expect(report.at <= report.receivedAt + period + 0.001, "serial \(report.serial) presented too late")
            }
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.at < $1.at }, "presented times increase")
        }

        /// sway nested in weston answers wp_presentation with weston's timestamps, in weston's clock
        /// (CLOCK_MONOTONIC_RAW): the overlay times frames by them, converted to CLOCK_MONOTONIC.
        @Test func whereTheCompositorAnswersWpPresentationItsFlipTimeIsReportedOnTheMonotonicClock() throws {
            let sway = try Sway(width: 320, height: 240, nestedInWeston: true)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            #expect(overlay.timing == .present, "nested sway did not answer the probe: \(sway.log.suffix(500))")
            let clock = try #require(overlay.presentationClock)
            var shownAt: [UInt64: Double] = [:]
            for serial in UInt64(1)...30 {
                shownAt[serial] = monotonicNow()
                overlay.show([OverlayDisc(x: Double(10 * serial), y: 100, radius: 8, white: serial % 2 == 0)], serial: serial)
                #expect(reports.waitForPresented(serial) != nil, "serial \(serial)")
            }
            let all = reports.presentedSoFar
            #expect(all.count == 30)
            for report in all {
                let before = try #require(shownAt[report.serial])
                // Converted from clock \(clock): after the show, before the test got the report.
                #expect(report.at >= before && report.at <= report.receivedAt,
                        "serial \(report.serial): presented \((report.at - before) * 1000) ms after show(), \((report.receivedAt - report.at) * 1000) ms before receipt (clock \(clock))")
            }
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.at < $1.at }, "presented times increase")
            #expect(try sway.screenshot().rgb(300, 100) == WaylandColour.white, "the last disc is on the nested screen")
        }

        /// Shown one after another, 300 frames are all reported, about a refresh apart; prints the
        /// show() → presented latency (the layer's share of planned → on screen), on headless sway
        /// (frame callback + one refresh) and on sway nested in weston (wp_presentation).
        @Test(arguments: [false, true]) func aLongRunOfFramesIsReportedFrameByFrame(nestedInWeston: Bool) throws {
            let sway = try Sway(width: 1280, height: 720, nestedInWeston: nestedInWeston)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            var shownAt: [UInt64: Double] = [:]
            for serial in UInt64(1)...300 {
                shownAt[serial] = monotonicNow()
                overlay.show([OverlayDisc(x: Double(10 + serial * 4 % 1200), y: 360, radius: 12, white: serial % 2 == 0)], serial: serial)
                #expect(reports.waitForPresented(serial) != nil, "serial \(serial)")
            }
            let all = reports.presentedSoFar
            #expect(all.count == 300)
            let gaps = zip(all, all.dropFirst()).map { $1.at - $0.at }.sorted()
            #expect(gaps.first.map { $0 > 0.005 } == true, "frames closer than 5 ms: \(gaps.prefix(3))")
            #expect(gaps[gaps.count / 2] < 0.1, "median gap \(gaps[gaps.count / 2]) s")
            let latency = all.compactMap { r in shownAt[r.serial].map { (r.at - $0) * 1000 } }.sorted()
            let p50 = latency[latency.count / 2], p99 = latency[min(latency.count - 1, latency.count * 99 / 100)]
            print("Wayland overlay on \(nestedInWeston ? "sway nested in headless weston" : "headless sway"), 1280x720: show() → presented over \(latency.count) frames: p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms (timing \(overlay.timing.rawValue))")
            #expect(p99 < 250, "p99 \(p99) ms")
        }
    }
}
