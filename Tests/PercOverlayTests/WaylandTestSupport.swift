// Shared by the overlay's Wayland tests: the suite that runs them one at a time, the reports an
// overlay delivered, the colours a screenshot must show.
import Foundation
import Logging
import Synchronization
import Testing
@testable import PercOverlay
import PercTestSupport

/// Every test against a real headless sway runs inside this suite, one at a time: each starts its
/// own compositor, and two at once on a 2-core machine would make the timing checks meaningless.
@Suite(.serialized) struct WaylandTests {}

/// What one Wayland overlay reported: presented frames and losses, with when the test received them.
final class WaylandReports: Sendable {
    private let presented = Mutex<[OverlayReports.Presented]>([])
    private let lost = Mutex<[WaylandError]>([])

    var presentedSoFar: [OverlayReports.Presented] { presented.withLock { $0 } }
    var lostSoFar: [WaylandError] { lost.withLock { $0 } }

    /// An overlay on `sway` (on the output named `output`, default the first) that reports here.
    func overlay(on sway: Sway, output: String? = nil, clickThrough: Bool = true) throws -> WaylandOverlay {
        try WaylandOverlay(display: sway.socketPath, output: output, logger: Logger(label: "test.overlay"), clickThrough: clickThrough,
                           onPresented: { [self] serial, at in
                               let receivedAt = monotonicNow()
                               presented.withLock { $0.append(.init(serial: serial, at: at, receivedAt: receivedAt)) }
                           },
                           onLost: { [self] error in lost.withLock { $0.append(error) } })
    }

    /// The report for `serial`, waiting up to `timeout` s.
    func waitForPresented(_ serial: UInt64, timeout: Double = 2) -> OverlayReports.Presented? {
        var found: OverlayReports.Presented?
        _ = waitUntil(timeout: timeout) {
            found = presentedSoFar.first { $0.serial == serial }
            return found != nil
        }
        return found
    }
}

enum WaylandColour {
    static let white: UInt32 = 0xFFFFFF
    static let black: UInt32 = 0x000000

    static func hex(_ v: UInt32?) -> String { v.map { String(format: "%06x", $0) } ?? "outside" }
}
