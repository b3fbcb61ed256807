// Test steps the X11 and the Wayland overlay tests share: the same checks, whichever display server.
import Foundation
import Testing
@testable import PercOverlay

/// What the shared steps do with an overlay: both backends have it.
protocol SteppedOverlay {
    func show(_ discs: [OverlayDisc], serial: UInt64)
    var hasEnded: Bool { get }
}

extension X11Overlay: SteppedOverlay {}
extension WaylandOverlay: SteppedOverlay {}

/// What the shared steps read from the reports an overlay delivered.
protocol SteppedReports {
    associatedtype Loss
    var presentedSoFar: [OverlayReports.Presented] { get }
    var lostSoFar: [Loss] { get }
    func waitForPresented(_ serial: UInt64, timeout: Double) -> OverlayReports.Presented?
}

extension OverlayReports: SteppedReports {}
extension WaylandReports: SteppedReports {}

/// Shows serial 1, then a burst 2...10 while 1 may still be in flight, and checks what every
/// backend must: reports in show order, each once, of the burst at most the first and the last
/// (the rest superseded), the last being 10. Returns the reports and when each serial was shown,
/// for the backend's own checks on the times.
func showOneThenABurst(on overlay: some SteppedOverlay, reports: some SteppedReports,
                       sourceLocation: SourceLocation = #_sourceLocation) -> (all: [OverlayReports.Presented], shownAt: [UInt64: Double]) {
    var shownAt: [UInt64: Double] = [:]
    func show(_ serial: UInt64) {
        shownAt[serial] = monotonicNow()
        overlay.show([OverlayDisc(x: Double(20 * serial), y: 100, radius: 10, white: serial % 2 == 0)], serial: serial)
    }
    show(1)
    #expect(reports.waitForPresented(1, timeout: 2) != nil, sourceLocation: sourceLocation)
    // A burst: at most the first (drawn at once) and the last get drawn; the rest are
    // superseded while a frame is in flight.
    for serial in UInt64(2)...10 { show(serial) }
    #expect(reports.waitForPresented(10, timeout: 2) != nil, sourceLocation: sourceLocation)
    usleep(200_000)

    let all = reports.presentedSoFar
    #expect(all.map(\.serial) == all.map(\.serial).sorted(), "reports in show order", sourceLocation: sourceLocation)
    #expect(Set(all.map(\.serial)).count == all.count, "each serial reported once", sourceLocation: sourceLocation)
    let burst = all.filter { $0.serial >= 2 }
    #expect(burst.count <= 2, "superseded shows were reported: \(burst.map(\.serial))", sourceLocation: sourceLocation)
    #expect(burst.last?.serial == 10, sourceLocation: sourceLocation)
    return (all, shownAt)
}

/// Shows a frame, waits for its report, then `kills` the display server: exactly one loss within
/// 2 s, the thread ended, under 0.2 s of CPU in the 2 s after (no spinning), and a show() after
/// the loss reports no second one. Returns the losses as they stood once the thread had ended,
/// for the backend's own checks on the message.
func killedServerIsReportedOnceWithoutSpinning<Reports: SteppedReports>(
    _ overlay: some SteppedOverlay, reports: Reports, kill: () -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [Reports.Loss] {
    overlay.show([OverlayDisc(x: 100, y: 100, radius: 20, white: true)], serial: 1)
    #expect(reports.waitForPresented(1, timeout: 2) != nil, sourceLocation: sourceLocation)

    kill()
    #expect(waitUntil(timeout: 2) { !reports.lostSoFar.isEmpty }, "onLost within 2 s", sourceLocation: sourceLocation)
    #expect(waitUntil(timeout: 2) { overlay.hasEnded }, "the overlay's thread ended", sourceLocation: sourceLocation)
    let lost = reports.lostSoFar
    #expect(lost.count == 1, sourceLocation: sourceLocation)

    let cpuBefore = processCPUSeconds()
    usleep(2_000_000)
    let cpu = processCPUSeconds() - cpuBefore
    #expect(cpu < 0.2, "the process used \(cpu) s of CPU in the 2 s after the loss", sourceLocation: sourceLocation)
    overlay.show([OverlayDisc(x: 10, y: 10, radius: 5, white: true)], serial: 2)
    #expect(reports.lostSoFar.count == 1, "onLost is called once", sourceLocation: sourceLocation)
    return lost
}
