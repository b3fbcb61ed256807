// The real recordings in Fixtures/evemu-devices decode to the contacts derived by hand
// (an independent script walked the E: lines; the figures are asserted here).
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct RecordingDecodeTests {
    func decoded(_ file: String) throws -> DecodedRecording {
        RecordingDecoder.decode(try RecordingLoader.load(path: Fixture.evemu(file)))
    }

    @Test func atmelOneFingerDragIsOneContactWithItsPath() throws {
        let d = try decoded("Atmel maXTouch Touchscreen.1-finger-drag-up-down.events")
        #expect(d.recording.device.name == "Atmel maXTouch Touchscreen")
        #expect(d.recording.device.slotCount == 10)
        let s = ContactSummary(d.updates)
        #expect(s.contacts.count == 1)
        let c = try #require(s.contacts.first)
        #expect(c.id == 6)
        #expect(c.samples == 149)
        #expect(c.first == Vec2(361, 379) && c.last == Vec2(382, 393)) // no resolution: units stand for mm
        #expect(abs(c.pathLengthRaw! - 602.653) < 0.001)
        #expect(abs(c.begin - 0.000001) < 1e-9 && abs(c.end! - 2.199870) < 1e-9)
        #expect(d.bad.total == 0)
        #expect(d.decoder.scale.source == .unknown)
    }

    @Test func atmelFastTapsAreNineSeparateContacts() throws {
        let s = ContactSummary(try decoded("Atmel maXTouch Touchscreen.1-finger-fast-taps.events").updates)
        #expect(s.contacts.map(\.id) == Array(3...11))
        #expect(s.maxSimultaneous == 1)
        #expect(s.contacts.allSatisfy { $0.samples == 1 && $0.pathLengthRaw == 0 && $0.end != nil })
        #expect(s.contacts[7].first == Vec2(349, 264))
    }

    @Test func atmelTwoFingersOverlap() throws {
        let s = ContactSummary(try decoded("Atmel maXTouch Touchscreen.2-fingers-touch-release.events").updates)
        #expect(s.contacts.map(\.id) == [7, 8])
        #expect(s.maxSimultaneous == 2)
        #expect(s.contacts.map(\.samples) == [7, 9])
        #expect(abs(s.contacts[0].pathLengthRaw! - 19.933) < 0.001)
        #expect(abs(s.contacts[1].pathLengthRaw! - 23.497) < 0.001)
    }

    @Test func fourFingerDragsHaveFourContactsAtOnce() throws {
        let atmel = ContactSummary(try decoded("Atmel maXTouch Touchscreen.4-finger-drag-down.events").updates)
        #expect(atmel.contacts.map(\.id) == [21, 22, 23, 24])
        #expect(atmel.maxSimultaneous == 4)
        #expect(atmel.contacts.map(\.samples) == [28, 25, 27, 22])
        #expect(atmel.contacts[3].first == Vec2(639, 207) && atmel.contacts[3].last == Vec2(647, 346))
        let ep = ContactSummary(try decoded("EP0430M09.4-finger-drag-down.events").updates)
        #expect(ep.contacts.map(\.id) == [9, 10, 11, 12])
        #expect(ep.maxSimultaneous == 4)
        #expect(ep.contacts.map(\.samples) == [94, 90, 101, 101])
        #expect(abs(ep.contacts[3].pathLengthRaw! - 285.801) < 0.001)
    }

    @Test func ep0430TwoFingerScroll() throws {
        let s = ContactSummary(try decoded("EP0430M09.2-finger-scroll-down.events").updates)
        #expect(s.contacts.map(\.id) == [13, 14])
        #expect(s.contacts[0].first == Vec2(930, 547) && s.contacts[0].last == Vec2(888, 216))
        #expect(abs(s.contacts[1].pathLengthRaw! - 283.703) < 0.001)
    }

    @Test func headerlessElanFileUsesItsDescAndKeepsEllipses() throws {
        let d = try decoded("ELAN CANDO Windows7.1-finger-drag-up-down.events")
        #expect(d.recording.device.name == "ELAN CANDO Windows7")
        #expect(d.recording.device.axes[EvdevCode.ABS_MT_POSITION_X]?.maximum == 3008)
        let s = ContactSummary(d.updates)
        #expect(s.contacts.count == 1 && s.contacts[0].id == 0)
        // 259 distinct positions, plus the second frame that changes only TOUCH_MINOR.
        #expect(s.contacts[0].samples == 260)
        #expect(s.contacts[0].first == Vec2(1454, 1117) && s.contacts[0].last == Vec2(1434, 625))
        #expect(abs(s.contacts[0].pathLengthRaw! - 2557.769) < 0.001)
        #expect(abs(s.contacts[0].begin - 1352020794.138597) < 1e-5)
        // The first sample carries TOUCH_MAJOR 7 (minor not yet sent) and orientation 1 of max 1 (a quarter turn).
        let first = d.updates[0]
        #expect(first.major == 7 && first.minor == 0)
        #expect(first.orientation == Double.pi / 2)
    }

    @Test func headerlessFileWithoutDescIsAClearError() throws {
        let text = "E: 1.000000 0003 0039 1\nE: 1.000000 0000 0000 0\n"
        #expect(throws: RecordingError.self) { try EvemuParser.parse(text, sourceName: "x.events") }
    }

    @Test func nTrigProtocolAIsReportedUnsupportedAndNotDecoded() throws {
        let d = try decoded("N-Trig MultiTouch.2-fingers-touch-release.events")
        #expect(d.recording.device.mtProtocol == .a)
        #expect(!d.decoder.isSupported)
        #expect(d.updates.isEmpty)
        #expect(d.bad.count("unsupported device") == 1)
        #expect(d.bad.entries["unsupported device"]?.firstDetail.contains("protocol A") == true)
    }

    @Test func surfaceSizeMapsUnitsToMillimetres() throws {
        let rec = try RecordingLoader.load(path: Fixture.evemu("EP0430M09.2-finger-scroll-down.events"))
        let d = RecordingDecoder.decode(rec, surfaceSize: Vec2(127.9, 76.7)) // 0.1 mm per unit
        #expect(d.decoder.scale.source == .configured)
        let p = d.updates[0].position
        #expect(abs(p.x - 93.0) < 1e-9 && abs(p.y - 54.7) < 1e-9)
    }
}
