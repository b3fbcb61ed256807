// The control API over a private bus against the real `percbridge demo`: errors, concurrency, signals.
import Foundation
import LightCheck
import Logging
import MTKTangibles
import Synchronization
import Testing
@testable import PercControl
@testable import PercRuntime
import PercSystem
import PercTestSupport

@Suite(.serialized) struct ControlAPITests {
    @Test func badInputGetsNamedErrorsThatSayWhatToDo() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let unknown = await demo.error(of: "Forget", [.string("42")])
        #expect(unknown?.name == "org.percbridge.Error.UnknownTangible")
        #expect(unknown?.message.contains("percbridge list") == true)
        let calibrateUnknown = await demo.error(of: "Calibrate", [.string("no such")])
        #expect(calibrateUnknown?.name == "org.percbridge.Error.UnknownTangible")
        let address = await demo.error(of: "Pair", [.string("C0:FF:EE:00:00"), .string("x")])
        #expect(address?.name == "org.percbridge.Error.InvalidArgument")
        #expect(address?.message.contains("AA:BB:CC:DD:EE:FF") == true)
        let notInDemo = await demo.error(of: "Pair", [.string("C0:FF:EE:00:00:99"), .string("")])
        #expect(notInDemo?.name == "org.percbridge.Error.PairingFailed")
        let kind = await demo.error(of: "Define", [.string("Rock"), .string("rock"), .string("")])
        #expect(kind?.name == "org.percbridge.Error.InvalidArgument")
        let noName = await demo.error(of: "Define", [.string("  "), .string("puc"), .string("")])
        #expect(noName?.name == "org.percbridge.Error.InvalidArgument")
        let percWithoutAddress = await demo.error(of: "Define", [.string("P"), .string("perc"), .string("")])
        #expect(percWithoutAddress?.message.contains("needs the Bluetooth address") == true)
        let taken = await demo.error(of: "Define", [.string("PERC A"), .string("puc"), .string("")])
        #expect(taken?.name == "org.percbridge.Error.NameTaken")
        let wrongSignature = await demo.error(of: "Forget", [.int32(1)])
        #expect(wrongSignature?.name == DBusError.Name.invalidArgs.rawValue)
        // PERC A lies on the surface from 0.5 s, held by its tangible: no free traces to define from.
        let noTraces = await demo.error(of: "Define", [.string("Puck"), .string("puc"), .string("")])
        #expect(noTraces?.name == "org.percbridge.Error.NoTraces")
        #expect(noTraces?.message.contains("no three still traces on the surface") == true)
        // Lifted at 3.5 s: nothing to calibrate.
        try await demo.waitUptime(4)
        let lifted = await demo.error(of: "Calibrate", [.string("PERC A")])
        #expect(lifted?.name == "org.percbridge.Error.NotOnSurface")
        #expect(lifted?.message.contains("put it on the surface") == true)
    }

    @Test func aWaitingDefineBlocksNeitherFramesNorOtherCalls() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let before = try await demo.status()["frames"]?.int64 ?? 0
        let started = MonotonicClock.now()
        async let define = demo.error(of: "Define", [.string("Puck"), .string("puc"), .string("")])
        try await Task.sleep(for: .milliseconds(300))
        var slowest = 0.0
        var sawDefineRunning = false
        for _ in 0..<5 {
            let t = MonotonicClock.now()
            let s = try await demo.status()
            slowest = max(slowest, MonotonicClock.now() - t)
            sawDefineRunning = sawDefineRunning || (s["running"]?.stringArray ?? []).contains("define")
            try await Task.sleep(for: .milliseconds(200))
        }
        let busy = await demo.error(of: "Define", [.string("Other"), .string("puc"), .string("")])
        let during = try await demo.status()["frames"]?.int64 ?? 0
        let defineError = await define
        let waited = MonotonicClock.now() - started
        #expect(sawDefineRunning)
        #expect(slowest < 1.0, "Status took \(slowest) s while Define waited")
        #expect(busy?.name == "org.percbridge.Error.Busy")
        #expect(during - before > 60, "frames went on: \(before) → \(during)")
        #expect(defineError?.name == "org.percbridge.Error.NoTraces")
        #expect(waited >= 2.5, "Define waited \(waited) s for traces (3 s)")
    }

    @Test func stateChangesAreSignalledNotEveryFrame() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let seen = Mutex<[[String: DBusValue]]>([])
        let counts = Mutex<[UInt32]>([])
        let sub = try await demo.client.subscribe(DBusMatchRule(path: ControlAPI.path, interface: ControlAPI.interface, member: "TangibleChanged")) { s in
            if let d = s.arguments.first?.stringVariantDictionary { seen.withLock { $0.append(d) } }
        }
        let props = try await demo.client.onPropertiesChange(path: ControlAPI.path, interface: ControlAPI.interface) { c in
            if let n = c.changed["TangiblesOnSurface"]?.unwrapped, case .uint32(let v) = n { counts.withLock { $0.append(v) } }
        }
        defer { sub.cancel(); props.cancel() }
        try await demo.waitUptime(4.5)
        let states = seen.withLock { $0 }.filter { $0["name"]?.string == "PERC A" }.compactMap { $0["state"]?.string }
        #expect(states.contains("tracked"), "\(states)")
        #expect(states.last == "inRange", "lifted at 3.5 s: \(states)")
        #expect(states.count <= 12, "one signal per change, not per frame (4 s = 480 frames): \(states)")
        #expect(counts.withLock { $0 } == [1, 0], "TangiblesOnSurface changes: \(counts.withLock { $0 })")
        let props2 = try await demo.client.allProperties(interface: ControlAPI.interface, path: ControlAPI.path, destination: ControlAPI.busName)
        #expect(props2["Mode"]?.string == "demo")
    }

    @Test func aSecondServiceOnTheSameBusIsRefusedWithTheReason() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let address = demo.bus.address
        let second = try await offPool {
            try CLI.run(["demo", "--scenario", "single-placement", "--control-bus", address, "--http", "127.0.0.1:0",
                         "--tuio", "127.0.0.1:9", "--duration", "5"])
        }
        #expect(second.status != 0)
        #expect(second.stderr.contains("another PercBridge owns org.percbridge.PercBridge1"), "\(second.stderr)")
        #expect(try await demo.status()["mode"]?.string == "demo", "the first one still answers")
    }

    @Test func frameWaitersResolveAfterAFrameTimeOutAndCancel() async throws {
        let waiters = FrameWaiters()
        struct Late: Error {}
        let pipeline = Pipeline(core: EngineCore(definitions: []), outputs: [], metrics: ServiceMetrics(), logger: Logger(label: "test"))
        async let value: Int = waiters.wait(timeout: .seconds(30), timeoutError: { Late() }) { view in view.calibrations.isEmpty ? nil : view.calibrations.count }
        while waiters.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        waiters.frameDone(FrameView(pipeline: pipeline, calibrations: []))
        #expect(waiters.count == 1, "a check that returns nil keeps waiting")
        let result = CalibrationResult(tangible: 1, status: .found, offset: Vec2(1, 2), surfacePosition: nil, confidence: 1,
                                       tolerance: 3, rounds: 4, time: 0)
        waiters.frameDone(FrameView(pipeline: pipeline, calibrations: [result, result]))
        #expect(try await value == 2)

        await #expect(throws: Late.self) {
            let _: Int = try await waiters.wait(timeout: .milliseconds(50), timeoutError: { Late() }) { _ in nil }
        }
        let task = Task { let _: Int = try await waiters.wait(timeout: .seconds(30), timeoutError: { Late() }) { _ in nil } }
        while waiters.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(waiters.count == 0, "every finished wait is removed")
    }
}
