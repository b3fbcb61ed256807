// evemu and libinput-record parsing: format details, bad lines located, fuzzed without crashes.
import Foundation
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct RecordingParserTests {
    @Test func libinputRecordAndEvemuOfTheSameEventsAgree() throws {
        let yml = try RecordingLoader.load(path: Fixture.path("libinput-record/atmel-2-fingers-touch-release.yml"))
        #expect(yml.format == .libinputRecord)
        #expect(yml.device.name == "Atmel maXTouch Touchscreen" && yml.device.bus == 24)
        #expect(yml.device.isDirect && yml.device.slotCount == 10)
        #expect(yml.bad.total == 0)
        let evemu = try RecordingLoader.load(path: Fixture.evemu("Atmel maXTouch Touchscreen.2-fingers-touch-release.events"))
        #expect(yml.entries.map(\.event) == evemu.entries.map(\.event))
        let a = ContactSummary(RecordingDecoder.decode(yml).updates), b = ContactSummary(RecordingDecoder.decode(evemu).updates)
        #expect(a == b)
        #expect(a.contacts.map(\.id) == [7, 8])
    }

    @Test func evemuReadsHexCodesDecimalValuesAndFractionsNotOctal() {
        #expect(EvemuParser.parseEvent(" 0.000001 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID -1") == InputEvent(time: 0.000001, type: 3, code: 0x39, value: -1))
        #expect(EvemuParser.parseTime("12.080000") == 12.08)
        #expect(EvemuParser.parseTime("1.09") == 1.09)
        #expect(EvemuParser.parseTime("1.0x") == nil)
        #expect(EvemuParser.parseEvent(" 1.0 0003") == nil)
    }

    @Test func oldAbsLinesWithoutResolutionAndNewOnesWithIt() throws {
        let text = "N: Panel\nI: 0003 04f3 0732 0000\nP: 02 00 00 00 00 00 00 00\nA: 2f 0 9 0 0\nA: 35 0 3008 0 0 12\nA: 36 0 1856 0 0 12\nE: 0.1 0003 0039 5\nE: 0.1 0000 0000 0\n"
        let r = try EvemuParser.parse(text, sourceName: "t")
        #expect(r.device.axes[0x2f]?.resolution == 0)
        #expect(r.device.axes[0x35]?.resolution == 12)
        #expect(r.device.vendor == 0x04f3 && r.device.isDirect)
        #expect(r.entries.count == 2 && r.entries[1].line == 8)
        #expect(RecordingDecoder.decode(r).decoder.scale.source == .resolution)
    }

    @Test func badEvemuLinesAreCountedWithTheirLine() throws {
        let text = "N: Panel\nA: 2f 0 9 0 0\nA: 35 0 100 0 0\nA: 36 0 100 0 0\nE: 0.1 0003 0039\nE: x 0003 0039 1\nZ: what\nE: 0.2 0000 0000 0\n"
        let r = try EvemuParser.parse(text, sourceName: "t.events")
        #expect(r.bad.count("malformed evemu event line") == 2)
        #expect(r.bad.entries["malformed evemu event line"]?.firstLocation == "t.events:5")
        #expect(r.bad.count("unknown evemu line") == 1)
        #expect(r.entries.count == 1)
    }

    @Test func libinputYAMLReadsWhatLibinputWrites() throws {
        let y = try LibinputYAML.parse("""
        a: 1
        b:
          c: "x: y" # comment
          d: [1, [2, 3], {k: v}]
        e:
        - f: 1
          g: 2
        - [4,
           5]
        h: plain, with comma
        """)
        #expect(y["a"]?.int == 1)
        #expect(y["b"]?["c"]?.string == "x: y")
        #expect(y["b"]?["d"]?.items?[1].items?.compactMap(\.int) == [2, 3])
        #expect(y["b"]?["d"]?.items?[2]["k"]?.string == "v")
        #expect(y["e"]?.items?[0]["g"]?.int == 2)
        #expect(y["e"]?.items?[1].items?.compactMap(\.int) == [4, 5])
        #expect(y["h"]?.string == "plain, with comma")
        #expect(throws: YAMLError.self) { try LibinputYAML.parse("a: [1, 2") }
    }

    /// A hostile recording cannot exhaust the stack: nesting is refused with its line before
    /// Yams (which composes nested nodes recursively) sees it.
    @Test func deeplyNestedYAMLIsRefusedWithItsLine() throws {
        let flow = "a: 1\nb: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        do { _ = try LibinputYAML.parse(flow); Issue.record("100,000 nested brackets parsed") } catch { #expect(error.line == 2 && error.message.contains("nested too deeply")) }
        var block = ""
        for depth in 0..<200 { block += String(repeating: " ", count: depth * 2) + "k\(depth):\n" }
        do { _ = try LibinputYAML.parse(block); Issue.record("200 nested mappings parsed") } catch { #expect(error.message.contains("indented too deeply")) }
        #expect(try LibinputYAML.parse("a: '[[[['\n")["a"]?.string == "[[[[")
    }

    @Test func fuzzedRecordingsNeverCrash() throws {
        var g = SplitMix64(seed: 0xEE)
        let evemu = Array(try String(contentsOfFile: Fixture.evemu("Atmel maXTouch Touchscreen.2-fingers-touch-release.events"), encoding: .utf8).utf8)
        let yml = Array(try String(contentsOfFile: Fixture.path("libinput-record/atmel-2-fingers-touch-release.yml"), encoding: .utf8).utf8)
        var parsed = 0, rejected = 0
        let runs = 200
        for i in 0..<runs {
            let seed = i % 2 == 0 ? evemu : yml
            // Mutate a window so the rest of the file stays valid and parsing gets deep.
            var bytes = seed
            for _ in 0..<8 {
                let at = Int.random(in: 0..<bytes.count, using: &g)
                let end = min(bytes.count, at + 24)
                bytes.replaceSubrange(at..<end, with: Mutator.mutate(Array(bytes[at..<end]), using: &g))
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let r = i % 2 == 0 ? try EvemuParser.parse(text, sourceName: "fuzz") : try LibinputRecordParser.parse(text, sourceName: "fuzz")
                let d = RecordingDecoder.decode(r)
                _ = ContactSummary(d.updates)
                parsed += 1
            } catch {
                rejected += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(parsed + rejected == runs)
        #expect(parsed > 0)
    }
}
