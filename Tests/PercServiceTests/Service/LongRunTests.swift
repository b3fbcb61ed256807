// Time is a load too: what the frame loop calls costs the same on the 100,000th frame as on the 1,000th (issue 36).
import Foundation
import Logging
import MTKTangibles
import Synchronization
import Testing
@testable import PercControl
@testable import PercRuntime
import PercSystem
import PercTestSupport

/// A callback read out of shared state each frame used to be re-wrapped in two
/// reabstraction thunks per read (`CallbackSlot` says why): each call went through every
/// thunk of every earlier frame, so its cost and its stack depth grew with the frame count
/// until `serve` crashed. The stack depth at the callback is an exact measure of that cost
/// (the chain of thunks) that no machine load can blur, so these tests compare it instead of
/// timing calls: the same call path must reach the callback at the same stack address on
/// the 100,000th frame as on the 1,000th.
@Suite struct LongRunTests {
    /// The address of a local of the caller's frame: lower means a deeper stack.
    @inline(never)
    static func stackAddress() -> UInt {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    /// Runs `body` on a thread of its own with a 256 MiB stack, so code that deepens the
    /// stack each frame fails these tests with figures instead of overflowing (the old
    /// code would need about 10 MiB by frame 100,000).
    static func onBigStack<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            let thread = Thread { done.resume(returning: body()) }
            thread.stackSize = 256 << 20
            thread.start()
        }
    }

    /// What a callback under test saw last: its stack address, and how often it was called.
    final class Probe: Sendable {
        private let state = Mutex<(address: UInt, calls: Int)>((0, 0))
        @inline(never)
        func record() { let a = LongRunTests.stackAddress(); state.withLock { $0.address = a; $0.calls += 1 } }
        var address: UInt { state.withLock { $0.address } }
        var calls: Int { state.withLock { $0.calls } }
    }

    /// Stack addresses seen by a callback at the given call numbers, stopping early (with
    /// what was seen) once the depth moved: no need to go on to 100,000 then.
    static func depths(at marks: [Int], call: (Int) -> Void, seen: Probe) -> [Int: UInt] {
        var out: [Int: UInt] = [:]
        for n in 1...marks.max()! {
            call(n)
            if marks.contains(n) {
                out[n] = seen.address
                if let first = out[marks[0]], out[n] != first { break }
            }
        }
        return out
    }

    static let marks = [1_000, 2_000, 10_000, 100_000]

    static func expectFlat(_ depths: [Int: UInt], _ what: String) {
        let first = depths[marks[0]] ?? 0
        #expect(first != 0, "\(what): the callback was never called")
        for n in marks.dropFirst() {
            guard let d = depths[n] else {
                Issue.record("\(what): stopped before call \(n): the stack had already moved")
                continue
            }
            #expect(d == first, "\(what): call \(n) reached the callback \(Int(first) - Int(d)) bytes deeper than call \(marks[0])")
        }
    }

    @Test func theControlAPIsPerFrameCallbackCostsTheSameAfter100000Frames() async throws {
        // The frame loop's real path: Pipeline.process → ControlService's afterFrame → the
        // on-surface count that ControlServer publishes as a D-Bus property.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-longrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipeline = PipelineHandle(Pipeline(core: EngineCore(definitions: []), outputs: [], metrics: ServiceMetrics(),
                                               logger: Logger(label: "test")))
        let registry = DirectRegistry(store: RegistryStore(path: dir.appendingPathComponent("tangibles.json").path)) { _ in }
        let control = ControlService(pipeline: pipeline, registry: registry, links: DemoLinks(modules: []), hub: nil,
                                     context: .init(mode: "test", frameRateHz: 1000), logger: Logger(label: "test"))
        control.attach()
        let seen = Probe()
        control.onSurfaceCount.set { _ in seen.record() }
        let depths = await Self.onBigStack {
            Self.depths(at: Self.marks, call: { n in
                pipeline.withPipeline { _ = $0.process(Frame(number: UInt64(n), time: Double(n) / 1000)) }
            }, seen: seen)
        }
        Self.expectFlat(depths, "ControlService.onSurfaceCount")
        #expect(seen.calls == depths.keys.max(), "called once per frame")
    }

    @Test(arguments: ["Int", "(String, Int)", "Void"])
    func aCallbackSlotCostsTheSameOnEveryCall(_ argument: String) async {
        let seen = Probe()
        let record: @Sendable () -> Void = { seen.record() }
        let depths = await Self.onBigStack { () -> [Int: UInt] in
            switch argument {
            case "Int":
                let slot = CallbackSlot<Int> { _ in record() }
                return Self.depths(at: Self.marks, call: { slot($0) }, seen: seen)
            case "(String, Int)":
                let slot = CallbackSlot<(reason: String, n: Int)> { _, _ in record() }
                return Self.depths(at: Self.marks, call: { slot(("x", $0)) }, seen: seen)
            default:
                let slot = CallbackSlot<Void> { record() }
                return Self.depths(at: Self.marks, call: { _ in slot() }, seen: seen)
            }
        }
        Self.expectFlat(depths, "CallbackSlot<\(argument)>")
    }

    @Test func theDepthCheckSeesAStackThatGrows() async {
        // The check itself: a callback reached one frame deeper on each call must fail it.
        let seen = Probe()
        @Sendable @inline(never) func nested(_ n: Int) { if n > 0 { nested(n - 1) } else { seen.record() } }
        let depths = await Self.onBigStack { Self.depths(at: Self.marks, call: { nested($0 / 500) }, seen: seen) }
        #expect(depths[2_000] != nil && depths[2_000] != depths[1_000], "a deeper call is seen")
        #expect(depths[100_000] == nil, "and the measurement stops there")
    }

    @Test func aCallbackSlotCanBeReplacedAndCleared() {
        let calls = Mutex<[String]>([])
        let slot = CallbackSlot<Int>()
        #expect(!slot(1), "nothing set: not called")
        slot.set { n in calls.withLock { $0.append("a\(n)") } }
        #expect(slot(2))
        slot.set { n in calls.withLock { $0.append("b\(n)") } }
        #expect(slot(3))
        slot.set(nil)
        #expect(!slot.isSet && !slot(4))
        #expect(calls.withLock { $0 } == ["a2", "b3"])
    }
}
