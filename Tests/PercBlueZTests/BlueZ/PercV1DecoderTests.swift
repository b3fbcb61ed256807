// PERC GATT v1 values: parsing, sequence gaps with wrap, rejected values, events made.
import Testing
import MTKTangibles
@testable import PercBlueZ

@Suite struct PercV1DecoderTests {
    func value(seq: UInt16, field: UInt8 = 1, light: UInt8 = 0, flags: UInt8 = 0, time: UInt32 = 1000) -> [UInt8] {
        PercV1Value(flags: flags, sequence: seq, deviceTime: time, field: field, light: light).bytes
    }

    @Test func parsesAllFieldsLittleEndian() throws {
        let v = try PercV1Value(parsing: [0x13, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 1, 0, 0xCD, 0xAB])
        #expect(v.heartbeat)
        #expect(!v.batteryLow)
        #expect(v.sequence == 0x1234)
        #expect(v.deviceTime == 0x1234_5678)
        #expect(v.field == 1 && v.light == 0)
        #expect(v.lightRaw == 0xABCD)
    }

    @Test func rawLightIsIgnoredWithoutItsFlag() throws {
        let v = try PercV1Value(parsing: [0x10, 0, 0, 0, 0, 0, 0, 1, 1, 0xCD, 0xAB])
        #expect(v.lightRaw == nil)
    }

    @Test func trailingBytesAreIgnored() throws {
        let v = try PercV1Value(parsing: value(seq: 7) + [9, 9, 9])
        #expect(v.sequence == 7)
    }

    @Test func shortAndOtherVersionValuesAreRejectedAndCounted() {
        var d = PercV1Decoder(tangible: 1)
        #expect(d.decode([0x10, 1, 2], arrival: 0).isEmpty)
        #expect(d.lastRejection == .tooShort(length: 3))
        var other = value(seq: 1)
        other[0] = 0x20
        #expect(d.decode(other, arrival: 0).isEmpty)
        #expect(d.lastRejection == .otherVersion(2))
        #expect(d.decode([], arrival: 0).isEmpty)
        #expect(d.stats.rejected == 3)
        #expect(d.stats.notifications == 3)
        #expect(d.stats.events == 0)
    }

    @Test func firstValueReportsBothSensorsThenOnlyChanges() {
        var d = PercV1Decoder(tangible: 4)
        let first = d.decode(value(seq: 1, field: 1, light: 0, time: 77), arrival: 2.5)
        #expect(first.map(\.kind) == [.field, .light])
        #expect(first[0] == SensorEvent(tangible: 4, kind: .field, value: 1, sequence: 1, deviceTime: 77, arrival: 2.5))
        #expect(d.decode(value(seq: 2, field: 1, light: 1), arrival: 3).map(\.kind) == [.light])
        let same = d.decode(value(seq: 3, field: 1, light: 1, flags: 1), arrival: 4)
        #expect(same.map(\.kind) == [.heartbeat])
        #expect(same[0].value == 1)
    }

    /// A decoder that has decoded plain values with these sequence numbers, in this order.
    func fed(_ sequence: [UInt16]) -> PercV1Decoder {
        var d = PercV1Decoder(tangible: 1)
        for seq in sequence { _ = d.decode(value(seq: seq), arrival: 0) }
        return d
    }

    @Test func sequenceGapsCountAsLost() {
        let d = fed([10, 11, 15])
        #expect(d.stats.lost == 3)
    }

    @Test func sequenceWrapsAt65536() {
        let d = fed([65534, 65535, 0, 2])
        #expect(d.stats.lost == 1)
    }

    @Test func duplicatesAreIgnoredNotLost() {
        var d = PercV1Decoder(tangible: 1)
        _ = d.decode(value(seq: 5), arrival: 0)
        #expect(d.decode(value(seq: 5, light: 1), arrival: 0).isEmpty)
        #expect(d.stats.duplicates == 1)
        #expect(d.stats.lost == 0)
    }

    /// Notifications arriving swapped (10, 12, 11, 13): the late one is ignored, not a gap of
    /// 65,534, and the gap it fills is not lost. A repeat of a number already seen stays a
    /// duplicate; a jump far back is a counter restart that is followed.
    @Test func aLateNotificationIsNotAWrapOfLosses() {
        var d = fed([10, 12, 11, 13, 15, 14, 16])
        #expect(d.stats.lost == 0)
        #expect(d.stats.duplicates == 2)
        #expect(d.decode(value(seq: 14, light: 1), arrival: 0).isEmpty)
        #expect(d.stats.lost == 0 && d.stats.duplicates == 3)
        _ = d.decode(value(seq: 20), arrival: 0)
        #expect(d.stats.lost == 3)
    }

    /// A counter restart without a link drop (further back than the 64-number window) is
    /// followed: no loss, and its state is decoded.
    @Test func aSequenceRestartIsFollowed() {
        var d = fed([500, 501])
        #expect(d.decode(value(seq: 0, light: 1), arrival: 0).map(\.kind) == [.light])
        _ = d.decode(value(seq: 1), arrival: 0)
        #expect(d.stats.lost == 0 && d.stats.duplicates == 0)
    }

    @Test func reconnectClearsTheSequenceExpectation() {
        var d = PercV1Decoder(tangible: 1)
        _ = d.decode(value(seq: 100), arrival: 0)
        d.linkRestarted()
        let events = d.decode(value(seq: 0), arrival: 0)
        #expect(d.stats.lost == 0)
        #expect(events.map(\.kind) == [.field, .light])
    }
}
