// A near-equilateral PERC's turn judged on its touches' mean positions (`EngineConfig.turnJitter`).
import Foundation
import Testing
import MTKTangibles
import MTKSimulator
import LightCheck

/// A near-equilateral pattern fits its three touches in three turns, 120° apart; one
/// sample's jitter makes a wrong one fit best one time in six. The touches' means over the
/// stationary window rule the wrong turns out after a few samples, so light need not pick
/// the turn, and without a display the guess is the right turn more often.
@Suite struct TurnByMeansTests {
    /// The first `count` near-equilateral placements of seed 3 that touched with all three markers.
    static func nearEquilateralCases(_ count: Int) -> [PlacementGenerator.Case] {
        var g = PlacementGenerator(seed: 3)
        var out: [PlacementGenerator.Case] = []
        while out.count < count {
            let c = g.next()
            guard c.scenario.tangibles.first(where: { $0.id == c.tangible })?.markers == BuiltInScenarios.nearEquilateralMarkers,
                  c.scenario.steps.allSatisfy({ if case .fingersTriple = $0.action { return false } else { return true } }) else { continue }
            out.append(c)
        }
        return out
    }

    func configs() -> (on: EngineConfig, off: EngineConfig) {
        var off = EngineConfig()
        off.turnJitter = 0
        return (EngineConfig(), off)
    }

    @Test func withLightTheMeansPickMostTurnsAndNoneEndsWrong() throws {
        let (on, off) = configs()
        let rig = PlacementRegressionTests()
        var guessedOn = 0, guessedOff = 0, correctOn = 0, correctOff = 0
        for c in Self.nearEquilateralCases(40) {
            let a = try rig.play(c, config: on), b = try rig.play(c, config: off)
            #expect(!a.wrong, "case \(c.index)")
            if a.correct { correctOn += 1 }
            if b.correct { correctOff += 1 }
            if a.taken == .windowGuess { guessedOn += 1 }
            if b.taken == .windowGuess { guessedOff += 1 }
        }
        // Off, light picks every turn; on, the means pick most of them (a window guess;
        // seed 3: 26 of 40, the others had a touch come late, and light answered first).
        #expect(guessedOff == 0, "off: \(guessedOff) of 40 window guesses")
        #expect(guessedOn >= 20, "on: \(guessedOn) of 40 window guesses")
        #expect(correctOn >= correctOff, "correct: on \(correctOn), off \(correctOff)")
        #expect(correctOn >= 37, "on: \(correctOn) of 40 correct")
    }

    @Test func withoutADisplayTheGuessedTurnIsRightMoreOften() throws {
        var (on, off) = configs()
        on.turnJitter = EngineConfig().turnJitter
        off.turnJitter = 0
        var rightOn = 0, rightOff = 0
        let cases = Self.nearEquilateralCases(60)
        for c in cases {
            rightOn += try Self.guessedRight(c, config: on) ? 1 : 0
            rightOff += try Self.guessedRight(c, config: off) ? 1 : 0
        }
        #expect(rightOn > rightOff, "right turn guessed: on \(rightOn), off \(rightOff) of \(cases.count)")
        #expect(rightOn >= 50, "on: \(rightOn) of \(cases.count)")
    }

    /// Plays a case with nothing drawn (every frame `drawing = false`): whether the PERC ends
    /// tracked with every marker within 5 mm of where it is.
    static func guessedRight(_ c: PlacementGenerator.Case, config: EngineConfig) throws -> Bool {
        var runner = try ScenarioRunner(c.scenario)
        var engine = Engine(config: config, definitions: runner.world.definitions)
        var last: TangibleReport?
        while !runner.isFinished {
            var frame = runner.nextFrame()
            frame.drawing = false
            let out = engine.step(frame, outcomes: [])
            #expect(out.needs.isEmpty, "no check without a display")
            last = out.tangible(c.tangible)
        }
        guard let r = last, r.state == .tracked, let pose = r.pose, let truth = runner.world.truePose(of: c.tangible),
              let markers = runner.world.definitions.first(where: { $0.id == c.tangible })?.markers else { return false }
        return markers.allSatisfy { pose.apply($0).distance(to: truth.apply($0)) <= 5 }
    }

    /// Recordings made before the setting existed replay as they ran: it reads as off.
    @Test func oldRecordingsReadItAsOff() throws {
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data("{\"timeWindow\": 0.2}".utf8))
        #expect(old.turnJitter == 0)
        #expect(EngineConfig().turnJitter == 0.7)
    }
}
