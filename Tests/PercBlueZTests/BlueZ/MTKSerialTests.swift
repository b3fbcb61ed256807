// MTK serial frames: reassembly across notifications, garbage, unknown groups, host frames.
import Testing
import MTKTangibles
@testable import PercBlueZ

@Suite struct MTKSerialTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func frameSplitAcrossNotificationsIsReassembled() {
        var f = MTKSerialFramer()
        #expect(f.feed(bytes("[2:")).isEmpty)
        #expect(f.feed(bytes("0")).isEmpty)
        #expect(f.feed(bytes(":1]")) == [MTKFrame(group: 2, index: 0, value: "1")])
        #expect(f.garbage == 0)
    }

    @Test func severalFramesInOneNotification() {
        var f = MTKSerialFramer()
        let frames = f.feed(bytes("[2:0:1][3:0:0]\r\n[3:0:1]"))
        #expect(frames.map(\.description) == ["[2:0:1]", "[3:0:0]", "[3:0:1]"])
        #expect(f.garbage == 0)
    }

    @Test func garbageBetweenFramesIsCountedAndSkipped() {
        var f = MTKSerialFramer()
        let frames = f.feed(bytes("xx[2:0:1]zz[2:x:1][3:0:0]"))
        #expect(frames.map(\.description) == ["[2:0:1]", "[3:0:0]"])
        #expect(f.garbage == 2 + 2 + 7)
    }

    @Test func unclosedFrameIsDroppedWhenTheNextBegins() {
        var f = MTKSerialFramer()
        #expect(f.feed(bytes("[2:0")) == [])
        #expect(f.feed(bytes("[3:0:1]")) == [MTKFrame(group: 3, index: 0, value: "1")])
        #expect(f.garbage == 4)
    }

    @Test func runawayFrameIsCutOff() {
        var f = MTKSerialFramer()
        _ = f.feed(bytes("[" + String(repeating: "1", count: 40)))
        #expect(f.garbage > 30)
        #expect(f.feed(bytes("[2:0:0]")).count == 1)
    }

    @Test func decoderMakesFieldAndLightEventsWithPolarity() {
        var d = MTKSerialDecoder(tangible: 3, lightWhiteValue: 0)
        let events = d.decode(bytes("[2:0:1][3:0:0][3:0:1]"), arrival: 1.5)
        #expect(events == [
            SensorEvent(tangible: 3, kind: .field, value: 1, arrival: 1.5),
            SensorEvent(tangible: 3, kind: .light, value: 1, arrival: 1.5),
            SensorEvent(tangible: 3, kind: .light, value: 0, arrival: 1.5),
        ])
        #expect(events.allSatisfy { $0.sequence == nil && $0.deviceTime == nil })
    }

    @Test func unknownGroupsAreCountedAndSkipped() {
        var d = MTKSerialDecoder(tangible: 1)
        let events = d.decode(bytes("[7:0:1][2:0:0][9:1:5]"), arrival: 0)
        #expect(events.map(\.kind) == [.field])
        #expect(d.stats.unknownGroups == 2)
    }

    @Test func hostFramesAreEncoded() {
        #expect(MTKFrame.subscribe(group: 2).bytes == bytes("[2:0:s]"))
        #expect(MTKFrame.subscribe(group: 3).bytes == bytes("[3:0:s]"))
        #expect(PercActuation.led(red: 255, green: 0, blue: 16).mtkFrame.description == "[4:0:ff0010]")
        #expect(PercActuation.ledOff.mtkFrame.description == "[4:0:0]")
        #expect(PercActuation.vibration(on: true).mtkFrame.description == "[4:1:1]")
        #expect(PercActuation.vibration(on: false).mtkFrame.description == "[4:1:0]")
        #expect(PercActuation.beep(on: true).mtkFrame.description == "[4:2:1]")
        #expect(PercActuation.beep(on: false).mtkFrame.description == "[4:2:0]")
    }

    @Test func percV1ActuatorBytes() {
        #expect(PercActuation.ledOff.percV1Bytes == [0])
        #expect(PercActuation.led(red: 1, green: 2, blue: 3).percV1Bytes == [1, 1, 2, 3])
        #expect(PercActuation.vibrate(milliseconds: 300).percV1Bytes == [2, 0x2C, 0x01])
        #expect(PercActuation.beep(on: true).percV1Bytes == nil)
    }

    @Test func profileIsRecognisedFromServiceUUIDs() {
        #expect(PercGattLayout.profile(forServiceUUIDs: ["0000FFE0-0000-1000-8000-00805F9B34FB"]) == .mtkSerial)
        #expect(PercGattLayout.profile(forServiceUUIDs: [PercGattLayout.percV1.service, PercGattLayout.mtkSerial.service]) == .percV1)
        #expect(PercGattLayout.profile(forServiceUUIDs: [PercGattLayout.nordicUART.service]) == .nordicUART)
        #expect(PercGattLayout.profile(forServiceUUIDs: [PercGattLayout.batteryService]) == nil)
    }
}
