// No display, no server, the server gone: one clear line, once, and the thread ends without spinning.
import Foundation
import Glibc
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct Errors {
        @Test func aDisplayWithNoServerThrowsAnErrorThatNamesItAndSaysWhatToCheck() {
            do {
                _ = try X11Overlay(display: ":987", onPresented: { _, _ in }, onLost: { _ in })
                Issue.record("connected to :987")
            } catch {
                let message = "\(error)"
                #expect(message.hasPrefix("cannot open X display :987: "))
                #expect(message.contains("check the display number"))
                #expect(!message.contains("\n"))
            }
        }

        @Test func noDisplayAnywhereSaysToRunInTheSessionOrPassOne() {
            #expect(throws: X11Error("no X display: DISPLAY is not set; run it in the table's graphical session or pass --display :0")) {
                try XCBConnection.resolveDisplay(nil, environment: nil)
            }
            #expect(throws: X11Error("no X display: DISPLAY is not set; run it in the table's graphical session or pass --display :0")) {
                try XCBConnection.resolveDisplay("", environment: "")
            }
            #expect((try? XCBConnection.resolveDisplay(nil, environment: ":3")) == ":3")
            #expect((try? XCBConnection.resolveDisplay(":1", environment: ":3")) == ":1")
        }

        @Test func aKilledServerIsReportedOnceAndTheThreadEndsWithoutSpinning() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 100, y: 100, radius: 20, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)

            xvfb.stop()
            #expect(waitUntil(timeout: 2) { !reports.lostSoFar.isEmpty }, "onLost within 2 s")
            #expect(waitUntil(timeout: 2) { overlay.hasEnded }, "the overlay's thread ended")
            let lost = reports.lostSoFar
            #expect(lost.count == 1)
            #expect(lost.first?.description.hasPrefix("lost X display \(xvfb.display): ") == true, "\(lost)")

            let cpuBefore = processCPUSeconds()
            usleep(2_000_000)
            let cpu = processCPUSeconds() - cpuBefore
            #expect(cpu < 0.2, "the process used \(cpu) s of CPU in the 2 s after the loss")
            overlay.show([OverlayDisc(x: 10, y: 10, radius: 5, white: true)], serial: 2)
            #expect(reports.lostSoFar.count == 1, "onLost is called once")
            #expect(throws: X11Error.self) { try overlay.readPixels([(x: 1, y: 1)]) }
        }

        @Test func stopIsIdempotentAndEndsTheThreadWithoutALoss() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            overlay.stop()
            overlay.stop()
            #expect(overlay.hasEnded)
            #expect(reports.lostSoFar.isEmpty)
            // The window is gone: a client can list the root's children without it.
            let tree = try xvfb.run("/usr/bin/xwininfo", ["-root", "-children"])
            #expect(!tree.stdout.isEmpty)
            #expect(!String(decoding: tree.stdout, as: UTF8.self).contains("percbridge overlay"))
        }
    }
}
