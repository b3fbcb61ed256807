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

            var shownAt: [UInt64: Double] = [:]
            func show(_ serial: UInt64) {
                shownAt[serial] = monotonicNow()
                overlay.show([OverlayDisc(x: Double(20 * serial), y: 100, radius: 10, white: serial % 2 == 0)], serial: serial)
            }
            show(1)
            #expect(reports.waitForPresented(1) != nil)
            // A burst: at most the first (drawn at once) and the last get drawn; the rest are
            // superseded while a frame is in flight.
            for serial in UInt64(2)...10 { show(serial) }
            #expect(reports.waitForPresented(10) != nil)
            usleep(200_000)

            let all = reports.presentedSoFar
            #expect(all.map(\.serial) == all.map(\.serial).sorted(), "reports in show order")
            #expect(Set(all.map(\.serial)).count == all.count, "each serial reported once")
            let burst = all.filter { $0.serial >= 2 }
            #expect(burst.count <= 2, "superseded shows were reported: \(burst.map(\.serial))")
            #expect(burst.last?.serial == 10)
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
