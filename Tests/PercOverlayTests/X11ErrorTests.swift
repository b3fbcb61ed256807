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
            let lost = killedServerIsReportedOnceWithoutSpinning(overlay, reports: reports) { xvfb.stop() }
            #expect(lost.first?.description.hasPrefix("lost X display \(xvfb.display): ") == true, "\(lost)")
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
