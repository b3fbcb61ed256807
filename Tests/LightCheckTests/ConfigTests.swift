// The config decodes from partial JSON with defaults, and names a bad setting.
import Foundation
import Testing
@testable import LightCheck

@Suite struct ConfigTests {
    func decode(_ json: String) throws -> LightCheckConfig {
        try JSONDecoder().decode(LightCheckConfig.self, from: Data(json.utf8))
    }

    /// Every default, except the settings that recordings made before them read as off.
    @Test func emptyJSONGivesTheDefaults() throws {
        var expected = LightCheckConfig()
        expected.everyPatchEvidence = false
        expected.toldApartFromDeparted = false
        expected.quietAfterLocate = false
        expected.locateInQuiet = false
        expected.evidenceByPlace = false
        expected.occupiedPlaces = false
        expected.explainOtherPlaces = false
        expected.toldApartFromNewcomers = false
        expected.newcomersTakeProbes = false
        expected.quietAfterHeldRound = false
        expected.locateMemory = 0
        expected.sensorClock = false
        expected.staggeredProbes = false
        expected.reserveAfterWaiting = 0
        expected.presentationFromFirstReport = false
        expected.lateAnswersPastDeadline = false
        expected.quietAfterVoidedRound = false
        #expect(try decode("{}") == expected)
    }

    /// `everyPatchEvidence` and `toldApartFromDeparted` are on for new runs; a recording's
    /// header written before they existed lacks the keys and replays with them off, as it
    /// ran. A header written since carries them.
    @Test func recordingsMadeBeforeTheEvidenceRulesReadThemAsOff() throws {
        #expect(LightCheckConfig().everyPatchEvidence && LightCheckConfig().toldApartFromDeparted)
        let old = try decode(#"{"patchRadius": 4, "missProbability": 0.03}"#)
        #expect(!old.everyPatchEvidence && !old.toldApartFromDeparted)
        let back = try decode(String(decoding: JSONEncoder().encode(LightCheckConfig()), as: UTF8.self))
        #expect(back == LightCheckConfig())
        #expect(throws: DecodingError.self) { try decode(#"{"explainReach": 0}"#) }
    }

    /// New runs read flips by the sensor's clock (`sensorClock`); a recording made before the
    /// setting existed replays without it, as it ran. The clock's prior deadline is checked
    /// against the clamps, and named when out of range.
    @Test func recordingsMadeBeforeTheSensorClockReadItAsOff() throws {
        #expect(LightCheckConfig().sensorClock)
        #expect(try !decode(#"{"patchRadius": 4}"#).sensorClock)
        #expect(try decode(#"{"sensorClock": true}"#).sensorClock)
        #expect(try decode(#"{"latency": {"clockPriorDeadline": 0.09}}"#).latency.clockPriorDeadline == 0.09)
        #expect(try decode(#"{"latency": {"window": 10}}"#).latency.clockPriorDeadline == 0.11)
        for bad in [#"{"clockPriorDeadline": 0.001}"#, #"{"clockPriorDeadline": 2}"#, #"{"clockPriorWeight": -1}"#,
                    #"{"minSensorResponse": -0.01}"#] {
            #expect(throws: DecodingError.self) { try decode(#"{"latency": \#(bad)}"#) }
        }
        var c = LightCheckConfig()
        c.latency.clockPriorDeadline = 1
        #expect(c.validationProblem?.contains("clockPriorDeadline") == true)
    }

    /// A locate goes on from its PERC's locate before (`locateMemory`) in new runs; a
    /// recording made before the setting existed starts every search from nothing, as it ran.
    /// Out of range is refused with its name.
    @Test func recordingsMadeBeforeLocateMemoryReadItAsZero() throws {
        #expect(LightCheckConfig().locateMemory == 2)
        #expect(try decode(#"{"patchRadius": 4}"#).locateMemory == 0)
        #expect(try decode(#"{"locateMemory": 1.5}"#).locateMemory == 1.5)
        for bad in ["-1", "61"] {
            #expect(throws: DecodingError.self) { try decode(#"{"locateMemory": \#(bad)}"#) }
        }
        var c = LightCheckConfig()
        c.locateMemory = -1
        #expect(c.validationProblem?.contains("locateMemory") == true)
    }

    @Test func namedKeysOverrideOnlyThemselves() throws {
        let c = try decode(#"{"patchRadius": 3, "footprintPolicy": "strict", "latency": {"priorDeadline": 0.2}}"#)
        #expect(c.patchRadius == 3)
        #expect(c.footprintPolicy == .strict)
        #expect(c.latency.priorDeadline == 0.2)
        #expect(c.latency.window == LatencyModel.Settings().window)
        #expect(c.missProbability == LightCheckConfig().missProbability)
    }

    /// `locate` has defaults of its own (tighter than a calibration's); a partial object keeps
    /// them, and a bad value is named under `locate`.
    @Test func locateKeepsItsOwnDefaults() throws {
        let c = try decode(#"{"locate": {"maxRounds": 10}, "calibration": {"maxRounds": 12}}"#)
        #expect(c.locate.maxRounds == 10)
        #expect(c.locate.tolerance == 1.5 && c.locate.targetConfidence == 0.95)
        #expect(c.calibration.maxRounds == 12 && c.calibration.tolerance == 3)
        #expect(throws: DecodingError.self) { try decode(#"{"locate": {"targetConfidence": 1.5}}"#) }
        var bad = LightCheckConfig()
        bad.locate.maxRounds = 0
        #expect(bad.validationProblem?.hasPrefix("locate: ") == true)
    }

    @Test func roundTrips() throws {
        var c = LightCheckConfig()
        c.movingStrategy = .wait
        c.calibration.tolerance = 2
        let back = try JSONDecoder().decode(LightCheckConfig.self, from: JSONEncoder().encode(c))
        #expect(back == c)
    }

    @Test func outOfRangeSettingsAreNamed() {
        #expect(throws: DecodingError.self) { try decode(#"{"missProbability": 2}"#) }
        var c = LightCheckConfig()
        c.missProbability = 2
        #expect(c.validationProblem?.contains("missProbability") == true)
        c = LightCheckConfig()
        c.latency.minDeadline = 1
        #expect(c.validationProblem?.contains("latency.minDeadline") == true)
    }
}
