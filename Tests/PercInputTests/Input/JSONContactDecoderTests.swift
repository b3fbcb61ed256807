// The JSON contact decoder: MTK feed, app `contacts` messages, validation, stream framing, fuzzing.
import Foundation
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct JSONContactDecoderTests {
    static let origin = InputOrigin(kind: .json, device: "t")

    func decode(_ d: inout JSONContactDecoder, _ json: String, at t: Double = 10) -> [ContactUpdate] {
        var out: [ContactUpdate] = []
        d.decode(Data(json.utf8), arrival: t, into: &out)
        return out
    }

    @Test func mtkFeedWithAllFields() {
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: Vec2(100, 100))
        let u = decode(&d, #"{"Touches": [{"traceID": 4, "state": "beginning", "position": {"x": 1.5, "y": 2}, "timestamp": 50, "majorAxis": 6, "minorAxis": 4, "rotation": 1.0}, {"traceID": 5, "state": "Beginning", "position": [3, 4], "timestamp": 50, "size": 5}]}"#)
        #expect(u.count == 2)
        #expect(u[0].contactID == 4 && u[0].phase == .begin && u[0].position == Vec2(1.5, 2) && u[0].major == 6 && u[0].minor == 4 && u[0].orientation == 1)
        #expect(u[1].major == 5 && u[1].minor == 5)
        #expect(u[0].time == 10) // first sample defines the clock offset
        let m = decode(&d, #"{"Touches": [{"traceID": 4, "state": "moving", "position": {"x": 2, "y": 2}, "timestamp": 50.5}]}"#, at: 10.6)
        #expect(m[0].phase == .move && abs(m[0].time - 10.5) < 0.001) // the offset ages by at most 1 ms a second (SenderClock)
    }

    @Test func appContactsMessage() {
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: Vec2(100, 100))
        let u = decode(&d, #"{"type": "contacts", "contacts": [{"id": 1, "phase": "begin", "x": 10, "y": 20, "major": 8, "orientation": 0.2}]}"#)
        #expect(u.count == 1 && u[0].position == Vec2(10, 20) && u[0].major == 8 && u[0].minor == nil && u[0].orientation == 0.2)
        #expect(decode(&d, #"{"type": "contacts", "contacts": [{"id": 1, "phase": "end", "x": 10, "y": 20}]}"#)[0].phase == .end)
    }

    /// A sender that begins contacts and never ends them cannot grow the table past the bound.
    @Test func contactsDownAtOnceAreBounded() {
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: Vec2(100, 100))
        let cap = JSONContactDecoder.maxActiveContacts
        var begun = 0
        for batch in 0..<3 {
            let list = (0..<200).map { i in #"{"id": \#(batch * 200 + i), "phase": "begin", "x": 10, "y": 20}"# }
            begun += decode(&d, #"{"type": "contacts", "contacts": [\#(list.joined(separator: ","))]}"#).count
        }
        #expect(begun == cap, "600 begun, \(cap) kept")
        #expect(d.bad.total == 600 - cap)
        // Ending one frees a place for a new one.
        #expect(decode(&d, #"{"type": "contacts", "contacts": [{"id": 0, "phase": "end", "x": 10, "y": 20}]}"#).count == 1)
        #expect(decode(&d, #"{"type": "contacts", "contacts": [{"id": 9000, "phase": "begin", "x": 10, "y": 20}]}"#).count == 1)
        #expect(decode(&d, #"{"type": "contacts", "contacts": [{"id": 9001, "phase": "begin", "x": 10, "y": 20}]}"#).isEmpty)
    }

    @Test func pixelsAreScaledToMillimetres() {
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: nil, unitScale: 0.25)
        #expect(decode(&d, #"{"type":"contacts","contacts":[{"id":1,"phase":"begin","x":400,"y":40,"major":20}]}"#)[0].position == Vec2(100, 10))
    }

    @Test func badContactsAreCountedAndSkippedNotTheWholeMessage() {
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: Vec2(100, 100))
        let u = decode(&d, #"{"Touches": [{"traceID": "a", "state": "beginning", "position": [1, 1]}, {"traceID": 2, "state": "flying", "position": [1, 1]}, {"traceID": 3, "state": "beginning", "position": [500, 1]}, {"traceID": 4, "state": "beginning", "position": [1, true]}, {"traceID": 6, "state": "beginning", "position": [1, 1], "size": "big"}, {"traceID": 5, "state": "beginning", "position": [1, 1]}]}"#)
        #expect(u.map(\.contactID) == [5])
        #expect(d.bad.count("contact without integer id") == 1)
        #expect(d.bad.count("contact with unknown state") == 1)
        #expect(d.bad.count("contact outside the surface") == 1)
        #expect(d.bad.count("contact without numeric position") == 1)
        #expect(d.bad.count("contact with a non-finite size or angle") == 1)
        #expect(d.bad.entries["contact outside the surface"]?.firstLocation == "json:t message #1 contact #2")
        var out: [ContactUpdate] = []
        #expect(!d.decode(Data("{not json".utf8), arrival: 1, into: &out))
        #expect(!d.decode(Data(#"{"hello": 1}"#.utf8), arrival: 1, into: &out))
        #expect(d.bad.count("malformed JSON") == 1 && d.bad.count("unknown JSON message") == 1)
    }

    @Test func phaseSequencesAreRepaired() {
        var d = JSONContactDecoder(origin: Self.origin)
        #expect(decode(&d, #"{"type":"contacts","contacts":[{"id":9,"phase":"move","x":1,"y":1}]}"#)[0].phase == .begin)
        #expect(decode(&d, #"{"type":"contacts","contacts":[{"id":9,"phase":"begin","x":1,"y":1}]}"#)[0].phase == .move)
        #expect(decode(&d, #"{"type":"contacts","contacts":[{"id":8,"phase":"end","x":1,"y":1}]}"#).isEmpty)
        #expect(d.bad.count("move of a contact that never began") == 1 && d.bad.count("end of a contact that never began") == 1)
    }

    @Test func streamFramerSplitsBackToBackDocuments() {
        var f = JSONStreamFramer(maxBytes: 64)
        let a = f.append(Array(#"{"a": "}{"}  [1,"#.utf8))
        #expect(a.documents.map { String(decoding: $0, as: UTF8.self) } == [#"{"a": "}{"}"#])
        let b = f.append(Array("2]\nx{\"b\":\"\\\"\"}".utf8))
        #expect(b.documents.map { String(decoding: $0, as: UTF8.self) } == ["[1,2]", #"{"b":"\""}"#])
        #expect(b.problems == [.garbage(UInt8(ascii: "x"))])
        let c = f.append(Array(("{" + String(repeating: " ", count: 100)).utf8))
        #expect(c.problems == [.tooLong(65)])
    }

    @Test func fuzzedJSONNeverCrashes() {
        var g = SplitMix64(seed: 0x150)
        var d = JSONContactDecoder(origin: Self.origin, surfaceSize: Vec2(100, 100))
        var f = JSONStreamFramer(maxBytes: 4096)
        let seeds = [Array(#"{"Touches": [{"traceID": 4, "state": "moving", "position": {"x": 1.5, "y": 2}, "timestamp": 50, "majorAxis": 6}]}"#.utf8),
                     Array(#"{"type": "contacts", "contacts": [{"id": 1, "phase": "begin", "x": 10, "y": 20, "orientation": 0.2}], "app_time": 3}"#.utf8)]
        var out: [ContactUpdate] = []
        let runs = 5_000
        for i in 0..<runs {
            let bytes = Mutator.mutate(seeds[i % 2], using: &g)
            d.decode(Data(bytes), arrival: Double(i), into: &out)
            _ = f.append(bytes)
        }
        #expect(out.allSatisfy { (0...100).contains($0.position.x) && $0.time.isFinite })
        #expect(d.messages == runs && d.bad.total > 0)
    }
}
