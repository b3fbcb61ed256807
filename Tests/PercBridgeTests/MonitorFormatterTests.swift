// `monitor`'s lines, made by hand: JSON a parser reads back, the keys and text it always had.
import Foundation
import Testing
import MTKTangibles
import PercBlueZ
@testable import PercBridge

@Suite struct MonitorFormatterTests {
    static let wall = MonitorFormatter.WallTime(seconds: 1_795_000_000, nanoseconds: 7_000_000)

    func lines(_ items: [MonitorFormatter.Item], json: Bool) -> [String] {
        var formatter = MonitorFormatter(addresses: ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02"], json: json)
        var out: [UInt8] = []
        for item in items { formatter.append(item, to: &out) }
        return String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func anEventLineHasEveryKeyOfAV1NotificationOnASharedClock() throws {
        let event = SensorEvent(tangible: 1, kind: .light, value: 1, sequence: 7, deviceTime: 1_000_000, arrival: 1.000_250)
        let out = lines([.status(1, .connected(profile: "perc-v1", path: .acquireNotify), arrival: 0.9, wall: Self.wall),
                         .event(event, lostSoFar: 2, wall: Self.wall)], json: true)
        #expect(out.count == 3 && out[2].isEmpty)
        let o = try object(out[1])
        #expect(Set(o.keys) == ["address", "arrival", "device_time_us", "jitter_ms", "kind", "latency_ms", "lost", "profile",
                                "seq", "time", "value"])
        #expect(o["address"] as? String == "C0:FF:EE:00:00:01")
        #expect(o["arrival"] as? Double == 1.000_250)
        #expect(o["device_time_us"] as? Int == 1_000_000)
        #expect(o["kind"] as? String == "light")
        #expect(abs((o["latency_ms"] as? Double ?? 0) - 0.25) < 0.002)
        #expect(o["jitter_ms"] as? Double == 0)
        #expect(o["lost"] as? Int == 2)
        #expect(o["profile"] as? String == "perc-v1")
        #expect(o["seq"] as? Int == 7)
        #expect(o["time"] as? String == "2026-11-18T11:06:40.007Z")
        #expect(o["value"] as? Int == 1)
        // Keys in the order JSONEncoder's .sortedKeys wrote them.
        #expect(out[1].hasPrefix(#"{"address":"C0:FF:EE:00:00:01","arrival":1.00025,"device_time_us":1000000,"jitter_ms":0,"kind":"light","#))
    }

    @Test func aReadValueHasNoSequenceLatencyOrProfileBeforeTheLinkSaysIt() throws {
        let read = SensorEvent(tangible: 2, kind: .field, value: 0, arrival: 5)
        let o = try object(lines([.event(read, lostSoFar: 0, wall: Self.wall)], json: true)[0])
        #expect(Set(o.keys) == ["address", "arrival", "kind", "lost", "time", "value"])
        #expect(o["address"] as? String == "C0:FF:EE:00:00:02")
    }

    @Test func statusTextWithQuotesAndControlCharactersReadsBack() throws {
        let why = "org.bluez.Error.Failed: \"le-connection-abort\"\\ by local\n\ttab \u{1}"
        let o = try object(lines([.status(1, .lost(reason: why), arrival: 3, wall: Self.wall)], json: true)[0])
        #expect(o["status"] as? String == "link lost: \(why)")
        #expect(o["kind"] as? String == "status")
        #expect(o["profile"] == nil)
    }

    @Test func textLinesSayGapsAndLatency() {
        let first = SensorEvent(tangible: 1, kind: .field, value: 1, sequence: 1, deviceTime: 1_000_000, arrival: 1.000_104)
        let gap = SensorEvent(tangible: 1, kind: .light, value: 0, sequence: 4, deviceTime: 1_010_000, arrival: 1.010_117)
        let out = lines([.event(first, lostSoFar: 0, wall: Self.wall), .event(gap, lostSoFar: 2, wall: Self.wall)], json: false)
        #expect(out[0].hasSuffix("  C0:FF:EE:00:00:01  field=1  seq 1  latency 0.10 ms"))
        #expect(out[1].hasSuffix("  C0:FF:EE:00:00:01  light=0  seq 4  (2 lost before this)  latency 0.12 ms"))
    }

    @Test func fixedDecimalsAsPrintfShowsThem() {
        #expect(MonitorFormatter.fixed(11.24, decimals: 1) == "11.2")
        #expect(MonitorFormatter.fixed(0.4, decimals: 1) == "0.4")
        #expect(MonitorFormatter.fixed(0.007, decimals: 2) == "0.01")
        #expect(MonitorFormatter.fixed(1234.5678, decimals: 2) == "1234.57")
        #expect(MonitorFormatter.fixed(3, decimals: 2) == "3.00")
    }
}
