// `monitor --json` against the BlueZ emulator: bursts of every PERC at once, and a reader that pauses.
import Foundation
import Synchronization
import Testing
import PercSystem
import PercTestSupport

@Suite(.serialized) struct MonitorBurstTests {
    static let percs = (1...10).map { String(format: "C0:FF:EE:00:10:%02X", $0) }

    /// Ten PERC v1 modules on a private bus, and `percbridge monitor --json` on all of them.
    struct Table {
        let bed: BlueZTestbed
        let monitor: Process
        let lines: MonitorLines

        init(startNotify: Bool) async throws {
            bed = try await BlueZTestbed(percs: MonitorBurstTests.percs.enumerated().map { ($1, "PERC-\($0 + 1)", "perc-v1", -50) })
            monitor = Process()
            // $PERCBRIDGE_MONITOR_BINARY: another build (to check that these tests fail on an older one).
            monitor.executableURL = ProcessInfo.processInfo.environment["PERCBRIDGE_MONITOR_BINARY"].map { URL(fileURLWithPath: $0) } ?? CLI.binary
            monitor.arguments = ["monitor", "--json", "--bus", bed.address, "--duration", "60"] + MonitorBurstTests.percs
                + (startNotify ? ["--start-notify"] : [])
            let out = Pipe()
            monitor.standardOutput = out
            monitor.standardError = FileHandle.nullDevice
            try monitor.run()
            lines = MonitorLines(out.fileHandleForReading)
        }

        /// Every link up and done with its link-up reads (the state, then the battery level).
        func ready() async -> Bool {
            await eventually(20) {
                let all = lines.all
                return all.filter { $0.kind == "status" && $0.status?.hasPrefix("connected") == true }.count == 10
                    && all.filter { $0.kind == "battery" }.count == 10
            }
        }

        /// Event lines of notifications (they carry a sequence number) after the first `skip` lines.
        func notifications(after skip: Int) -> [MonitorLine] { lines.all.dropFirst(skip).filter(\.isNotification) }

        /// Notifications printed after the first `skip` lines: one or two lines each (field and
        /// light when both changed), told apart by PERC and sequence number.
        func notificationCount(after skip: Int) -> Int {
            Set(notifications(after: skip).map { "\($0.address ?? "") \($0.seq ?? -1)" }).count
        }

        func stop() {
            if monitor.isRunning { kill(monitor.processIdentifier, SIGKILL) }
            monitor.waitUntilExit()
            bed.stop()
        }
    }

    /// A burst: every PERC notifies in the same turn of the emulator's loop. Each burst's ten
    /// lines must be readable before the next burst is sent — lines held back until a buffer
    /// fills, or until more lines come, never arrive here — and none may have waited long
    /// after its notification arrived (a generous bound: the target is 2 ms).
    @Test(arguments: [false, true]) func everyBurstIsPrintedBeforeTheNextIsSent(startNotify: Bool) async throws {
        let table = try await Table(startNotify: startNotify)
        defer { table.stop() }
        #expect(await table.ready())
        let before = table.lines.all.count
        for burst in 1...20 {
            try await table.bed.control.startStreamAll(rate: 100, count: 1)
            let printed = await eventually(5) { table.notificationCount(after: before) >= 10 * burst }
            #expect(printed, "burst \(burst): \(table.notificationCount(after: before) - 10 * (burst - 1)) of 10 notifications printed")
            if !printed { return }
        }
        let notifications = table.notifications(after: before)
        #expect(table.notificationCount(after: before) == 200)
        let waited = notifications.map { $0.readAt - ($0.arrival ?? 0) }
        #expect(waited.allSatisfy { $0 >= 0 && $0 < 0.25 }, "longest wait between arrival and read: \(waited.max() ?? 0) s")
    }

    /// A reader that stops reading for a while (a terminal scrolled back, a slow consumer)
    /// fills the pipe. Receiving must go on meanwhile: every notification keeps the arrival it
    /// had (`latency_ms` from its device time stays small), none is lost, and the lines come
    /// out once the reader reads again. On the code that wrote from the receiving thread the
    /// write blocked, receiving stopped, and the notifications after the first 64 KiB of lines
    /// were stamped when the reader came back (latency_ms ≥ 2 s here).
    @Test(arguments: [false, true]) func aPausedReaderDoesNotHoldUpReceiving(startNotify: Bool) async throws {
        let table = try await Table(startNotify: startNotify)
        defer { table.stop() }
        #expect(await table.ready())
        let before = table.lines.all.count
        table.lines.pause()
        // 1,000 lines of about 215 bytes: three times what a pipe holds.
        try await table.bed.control.startStreamAll(rate: 100, count: 100)
        try await Task.sleep(for: .seconds(3))
        table.lines.resume()
        #expect(await eventually(10) { table.notificationCount(after: before) >= 1000 })
        let notifications = table.notifications(after: before)
        #expect(table.notificationCount(after: before) == 1000)
        // Arrival − device time (both CLOCK_MONOTONIC here): what latency_ms shows, also where
        // the StartNotify loop's stamp (taken when its poll() returns) precedes a notification
        // read in the same round, which latency_ms leaves out.
        let delays = notifications.compactMap(\.sinceDeviceTime)
        #expect(delays.count == notifications.count)
        #expect(delays.allSatisfy { $0 < 0.25 }, "largest arrival − device time: \(delays.max() ?? 0) s")
        #expect(notifications.allSatisfy { $0.lost == 0 })
    }
}

/// What the tests look at in one line of `monitor --json`, and when it was read.
struct MonitorLine: Sendable {
    var address: String?
    var kind: String?
    var status: String?
    var seq: Int?
    var arrival: Double?
    var deviceTime: UInt32?
    var lost: Int?
    /// CLOCK_MONOTONIC when the reader got it (the timeline of `arrival`).
    var readAt: Double

    var isNotification: Bool { seq != nil && (kind == "field" || kind == "light") }

    /// Seconds from the device time (µs mod 2^32) to the arrival stamp, signed.
    var sinceDeviceTime: Double? {
        guard let arrival, let deviceTime else { return nil }
        let micros = UInt32(truncatingIfNeeded: UInt64(arrival * 1_000_000)) &- deviceTime
        return Double(Int32(bitPattern: micros)) / 1e6
    }
}

/// Reads monitor's stdout on its own thread and stamps each line with CLOCK_MONOTONIC when
/// it was read; can stop reading for a while (`pause`) to let the pipe fill.
final class MonitorLines: Sendable {
    private struct State {
        var rest: [UInt8] = []
        var lines: [MonitorLine] = []
        var paused = false
    }
    private let state = Mutex(State())

    init(_ handle: FileHandle) {
        let fd = handle.fileDescriptor
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                while state.withLock({ $0.paused }) { usleep(10_000) }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                let now = MonotonicClock.now()
                var complete: [ArraySlice<UInt8>] = []
                state.withLock { s in
                    s.rest.append(contentsOf: buffer[0..<n])
                    guard let last = s.rest.lastIndex(of: 0x0A) else { return }
                    complete = s.rest[...last].split(separator: 0x0A)
                    s.rest.removeSubrange(...last)
                }
                let parsed = complete.compactMap { Self.parse($0, readAt: now) }
                state.withLock { $0.lines.append(contentsOf: parsed) }
            }
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>, readAt: Double) -> MonitorLine? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        return MonitorLine(address: o["address"] as? String, kind: o["kind"] as? String, status: o["status"] as? String, seq: o["seq"] as? Int,
                           arrival: o["arrival"] as? Double, deviceTime: (o["device_time_us"] as? Int).map { UInt32(truncatingIfNeeded: $0) }, lost: o["lost"] as? Int,
                           readAt: readAt)
    }

    func pause() { state.withLock { $0.paused = true } }
    func resume() { state.withLock { $0.paused = false } }
    var all: [MonitorLine] { state.withLock { $0.lines } }
}
