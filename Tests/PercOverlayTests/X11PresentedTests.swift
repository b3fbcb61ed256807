// Each drawn frame is reported once, with its serial and the time it reached the screen.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct Presented {
        @Test func xvfbTimesFramesWithPresentAndEachReportCarriesItsSerialAndATimeAfterItsShow() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            #expect(overlay.timing == .present)

            let (all, shownAt) = showOneThenABurst(on: overlay, reports: reports)
            for report in all {
                let before = try #require(shownAt[report.serial])
                #expect(report.at >= before, "serial \(report.serial) presented \(report.at - before) s before its show()")
                #expect(report.at <= report.receivedAt, "serial \(report.serial) presented after it was reported")
            }
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.at < $1.at }, "presented times increase")
        }

        /// Present left unused: the round trip after the drawing plus one refresh period.
        @Test func withoutPresentTheTimeIsTheRoundTripPlusOneRefreshPeriod() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb, usePresent: false)
            defer { overlay.stop() }
            #expect(overlay.timing == .estimate)
            let period = 1 / ((overlay.outputs.first(where: \.primary) ?? overlay.outputs.first)?.refreshHz ?? 60)

            let before = monotonicNow()
            overlay.show([OverlayDisc(x: 100, y: 100, radius: 10, white: true)], serial: 7)
            let report = try #require(reports.waitForPresented(7))
            #expect(report.at >= before + period)
            #expect(report.at <= report.receivedAt + period)
        }
    }
}
