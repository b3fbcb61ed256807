// The frame core's next deadline (`Wake`): stepping only on input and when it is due gives what stepping every frame gives.
import Foundation
import Testing
import FrameCore
import LightCheck
import MTKTangibles
import MTKSimulator
@testable import PercRuntime

@Suite struct FrameWakeTests {
    /// Two PERCs whose touches the screen filters after 1–2 s (they rest: a stationary check
    /// every 2 s), one lifted and set down again, a finger, a link lost and back.
    static let scenario = """
    {"name": "wake", "seed": 11, "duration": 30,
     "hardware": {"filterDelayMin": 1, "filterDelayMax": 2, "lightMissProbability": 0, "flickerRate": 0},
     "tangibles": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}],
     "steps": [
       {"at": 0.5, "place": {"tangible": 1, "position": [300, 200], "angle": 30}},
       {"at": 2.0, "place": {"tangible": 2, "position": [550, 320], "angle": -20}},
       {"at": 9.0, "fingerDown": {"finger": 1, "position": [150, 400]}},
       {"at": 9.4, "fingerUp": {"finger": 1}},
       {"at": 12.0, "lift": {"tangible": 2}},
       {"at": 15.0, "place": {"tangible": 2, "position": [500, 150], "angle": 45}},
       {"at": 21.0, "linkLoss": {"tangible": 1}},
       {"at": 23.0, "linkReturn": {"tangible": 1}}
     ]}
    """

    struct Seen: Equatable {
        var tangibles: [TangibleReport]
        var needs: [VerificationNeed]
        var overlay: Overlay
        var outcomes: [VerificationOutcome]
    }

    static func seen(_ out: EngineOutput, _ plan: LightCheckPlan) -> Seen {
        Seen(tangibles: out.tangibles, needs: out.needs, overlay: plan.overlay, outcomes: plan.outcomes)
    }

    /// One core steps every frame; the other only frames with input or whose time its last
    /// `wake` says is due. Where the sparse one stepped, both saw the same; where it slept,
    /// the every-frame core reported what it had at the sparse core's last step (time alone
    /// changed nothing).
    @Test func steppingOnlyWhenDueGivesWhatSteppingEveryFrameGives() throws {
        let scenario = try Scenario.decode(Data(Self.scenario.utf8))
        var runner = try ScenarioRunner(scenario, frameRate: 120)
        var every = ReplayCore(definitions: runner.world.definitions)
        var sparse = ReplayCore(definitions: runner.world.definitions)
        var last: Seen?
        var stepped = 0, slept = 0, restingFrames = 0, sleptWhileResting = 0, stationaryOutcomes = 0
        var waits: [Wake] = []
        var byInput = 0, bySensor = 0, byPresented = 0
        while runner.now < scenario.duration {
            let frame = runner.nextFrame()
            let (out, plan) = every.advance(frame)
            let now = Self.seen(out, plan)
            if let overlay = plan.overlayChanged ? plan.overlay : nil { runner.presentAtNextRefresh(overlay, after: frame.time) }
            let resting = out.tangibles.contains { $0.state == .resting }
            if resting { restingFrames += 1 }
            let input = !frame.contacts.isEmpty || !frame.sensorEvents.isEmpty || !frame.presented.isEmpty
            if last == nil || input || sparse.wake.isDue(at: frame.time) {
                let (o, p) = sparse.advance(frame)
                let s = Self.seen(o, p)
                #expect(s == now, "frame \(frame.number) at \(frame.time): the sparse core differs\n\(s)\n\(now)")
                if s != now { return }
                stepped += 1
                if input { byInput += 1; if !frame.sensorEvents.isEmpty { bySensor += 1 }; if !frame.presented.isEmpty { byPresented += 1 } }
                last = s
                waits.append(sparse.wake)
            } else {
                #expect(now == last, "frame \(frame.number) at \(frame.time): time alone changed the result while the sparse core slept (its wake was \(sparse.wake))")
                if now != last { return }
                slept += 1
                if resting { sleptWhileResting += 1 }
            }
            stationaryOutcomes += plan.outcomes.count { o in out.tangibles.contains { $0.id == o.tangible && $0.state == .resting } }
        }
        print("wake: by input \(byInput) (sensor \(bySensor), presented \(byPresented)); \(stepped) frames stepped, \(slept) slept; resting frames \(restingFrames), slept while resting \(sleptWhileResting); \(stationaryOutcomes) outcomes while resting")
        // The case it is for: resting PERCs are checked every 2 s and otherwise need no frame.
        #expect(restingFrames > 1200 && stationaryOutcomes >= 5, "the scenario rests and checks: \(restingFrames), \(stationaryOutcomes)")
        #expect(sleptWhileResting > restingFrames / 2, "\(sleptWhileResting) of \(restingFrames) resting frames slept")
        #expect(waits.contains { if case .at = $0 { true } else { false } }, "a stationary check's deadline was named")
    }

    @Test func wakeIsTheEarliestAndSaysWhenItIsDue() {
        #expect(Wake.at(3).earliest(.at(2)) == .at(2))
        #expect(Wake.never.earliest(.at(5)) == .at(5) && Wake.at(5).earliest(.never) == .at(5))
        #expect(Wake.at(1).earliest(.everyFrame) == .everyFrame && Wake.never.earliest(.never) == .never)
        #expect(Wake.at(2).isDue(at: 2) && !Wake.at(2).isDue(at: 1.99) && !Wake.never.isDue(at: 1e9) && Wake.everyFrame.isDue(at: 0))
    }

    @Test func theEventClockSleepsUntilTheNamedDeadlineWithAKeepAliveWhileOccupied() {
        var s = TickSchedule(mode: .events(maxHz: 1000, busyHz: 100, followPresented: false))
        s.start(at: 0)
        _ = s.inputPending(now: 2)
        s.wake(.at(3.5), occupied: false)
        #expect(s.nextDeadline == 3.5)
        s.wake(.at(3.5), occupied: true)
        #expect(s.nextDeadline == 2 + TickSchedule.keepAlive, "a keep-alive frame comes first")
        s.wake(.at(2.001), occupied: false)
        #expect(s.nextDeadline == 2.01, "never sooner than one busy period")
        s.wake(.never, occupied: true)
        #expect(s.nextDeadline == 3)
        s.wake(.never, occupied: false)
        #expect(s.nextDeadline == .infinity)
        s.wake(.everyFrame, occupied: true)
        #expect(s.nextDeadline == 2.01)
        #expect(s.timerFired(now: 2.01) == 2.01)
        #expect(abs(s.nextDeadline - 2.02) < 1e-9, "every frame: one busy period after each cut")
    }
}
