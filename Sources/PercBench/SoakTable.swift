// `bench soak`: a busy table's PERCs — lifted and put down again, slid about, their links dropped — all through the run.
import Foundation
import MTKTangibles
import Synchronization
import PercSystem
import PercEmulator

/// Three loops on their own tasks until `stop()`:
/// - every 1–2 s one PERC (in turn) is lifted: its stream stops, field off, markers up; after
///   0.1–0.6 s it is put down up to `reach` mm from its place (new touches), field on a few
///   frames later, its stream on again;
/// - every 1–2 s one PERC slides to a new spot within `reach` in 1 mm steps (about 20 mm/s,
///   slow enough to be light-checked) and then lies still;
/// - every 4–6 s one PERC's link drops; the emulator's auto-connect brings it back within
///   0.2 s and serve subscribes again (`max_backoff_s = 1`).
/// An emulator call that fails is counted and the loop goes on: a soak ends on serve's
/// frames, not on one late D-Bus reply.
final class SoakTable: Sendable {
    /// How far a PERC strays from its place in `BenchLayout` (mm): PERCs 110 mm apart with
    /// 30 mm legs stay clear of each other, and of the fingers and the probe line.
    static let reach = 15.0

    struct Counts: Sendable {
        var lifts = 0
        var moves = 0
        var linkDrops = 0
        var failedCalls = 0
    }

    private let addresses: [String]
    private let control: BlueZEmulatorControl
    private let touches: BenchTouchSender
    private let percRate: Double
    private let tally = Mutex(Counts())
    /// Where each PERC lies now, relative to its place in the layout.
    private let offsets: Mutex<[Vec2]>
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private init(addresses: [String], control: BlueZEmulatorControl, touches: BenchTouchSender, percRate: Double) {
        self.addresses = addresses; self.control = control; self.touches = touches; self.percRate = percRate
        offsets = Mutex(Array(repeating: Vec2(0, 0), count: addresses.count))
    }

    /// Starts the loops on PERCs already placed and streaming.
    static func start(addresses: [String], control: BlueZEmulatorControl, touches: BenchTouchSender, percRate: Double) -> SoakTable {
        let table = SoakTable(addresses: addresses, control: control, touches: touches, percRate: percRate)
        table.tasks.withLock {
            $0 = [Task { await table.lifts() }, Task { await table.moves() }, Task { await table.linkDrops() }]
        }
        return table
    }

    var counts: Counts { tally.withLock { $0 } }

    func stop() async {
        let all = tasks.withLock { t -> [Task<Void, Never>] in defer { t = [] }; return t }
        for t in all { t.cancel() }
        for t in all { await t.value }
    }

    private func lifts() async {
        var k = 0
        while await pause(1...2) {
            let address = addresses[k]
            await call { if percRate > 0 { try await control.stopStream(address) } }
            await call { try await control.sendV1(address, field: 0, light: 0) }
            touches.lift(perc: k)
            guard await pause(0.1...0.6) else { return }
            let spot = Self.randomSpot()
            offsets.withLock { $0[k] = spot }
            touches.place(perc: k, at: spot)
            // Field on a few frames after the touches, as a PERC set down: the engine's time
            // window then takes the new triple.
            guard await pause(0.04...0.04) else { return }
            await call { try await control.sendV1(address, field: 1, light: 0) }
            await call { if percRate > 0 { try await control.startStream(address, rate: percRate, count: 0) } }
            tally.withLock { $0.lifts += 1 }
            k = (k + 1) % addresses.count
        }
    }

    private func moves() async {
        while await pause(1...2) {
            let k = Int.random(in: 0..<addresses.count)
            let from = offsets.withLock { $0[k] }
            let to = Self.randomSpot()
            let steps = max(1, Int((to - from).length.rounded(.up)))
            for step in 1...steps {
                guard await pause(0.05...0.05) else { return }
                let spot = from + (to - from) * (Double(step) / Double(steps))
                offsets.withLock { $0[k] = spot }
                // Lifted meanwhile: it is put down at a spot of its own.
                guard touches.move(perc: k, to: spot) else { break }
                if step == steps { tally.withLock { $0.moves += 1 } }
            }
        }
    }

    private func linkDrops() async {
        while await pause(4...6) {
            let address = addresses.randomElement()!
            await call { try await control.dropLink(address) }
            tally.withLock { $0.linkDrops += 1 }
        }
    }

    private static func randomSpot() -> Vec2 { Vec2(Double.random(in: -reach...reach), Double.random(in: -reach...reach)) }

    /// Sleeps a random time in `seconds`; false once the loop is to end.
    private func pause(_ seconds: ClosedRange<Double>) async -> Bool {
        try? await Task.sleep(for: .microseconds(Int(Double.random(in: seconds) * 1e6)))
        return !Task.isCancelled
    }

    private func call(_ body: () async throws -> Void) async {
        do { try await body() } catch { tally.withLock { $0.failedCalls += 1 } }
    }
}
