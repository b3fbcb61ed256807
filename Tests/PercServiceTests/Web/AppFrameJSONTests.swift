// The hand-written `frame` writer against JSONEncoder's encoding of AppWire.FrameMessage.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
@testable import PercWeb
import PercTestSupport

@Suite struct AppFrameJSONTests {
    /// The reference: what the app protocol's Encodable types make of a snapshot.
    static func reference(_ s: SurfaceSnapshot, aheadMS: Int = 0) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(AppWire.FrameMessage(s, aheadMS: aheadMS)), as: UTF8.self)
    }

    static func parsed(_ json: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary, "not a JSON object: \(json)")
    }

    static func randomSnapshot(_ rng: inout some RandomNumberGenerator) -> SurfaceSnapshot {
        let names = ["red", "blue \"quoted\"", "back\\slash", "tab\there", "line\nbreak", "ünïcödé 🟢", "ctl\u{01}x", ""]
        let states = TangibleStateName.allCases
        let provenances: [Provenance?] = [nil, .guessed, .confirmed, .kept]
        func d(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
        let tangibles = (0..<Int.random(in: 0...6, using: &rng)).map { i in
            TangibleSnapshot(id: i + 1, name: names.randomElement(using: &rng)!, state: states.randomElement(using: &rng)!,
                             pose: Bool.random(using: &rng) ? Pose(position: Vec2(d(0...1018), d(0...573)), angle: d(0...6.28)) : nil,
                             provenance: provenances.randomElement(using: &rng)!,
                             session: Bool.random(using: &rng) ? Int64.random(in: 0...1_000_000, using: &rng) : nil,
                             velocity: Bool.random(using: &rng) ? .zero : Vec2(d(-500...500), d(-500...500)),
                             angularVelocity: d(-3...3),
                             field: Bool.random(using: &rng) ? Int.random(in: 0...1, using: &rng) : nil,
                             light: Bool.random(using: &rng) ? Int.random(in: 0...1, using: &rng) : nil,
                             battery: Bool.random(using: &rng) ? Int.random(in: 0...100, using: &rng) : nil)
        }
        let pointers = (0..<Int.random(in: 0...25, using: &rng)).map { i in
            PointerSnapshot(id: Int64(i * 7 + 1), position: Vec2(d(0...1018), d(0...573)),
                            velocity: Bool.random(using: &rng) ? .zero : Vec2(d(-900...900), 1e-7),
                            origin: ["evdev:ILITEK", "tuio:percbridge-bench", "app \"x\"", ""].randomElement(using: &rng)!)
        }
        return SurfaceSnapshot(frame: UInt64.random(in: 0...UInt64(Int64.max), using: &rng), time: d(0...100_000),
                               tangibles: tangibles, pointers: pointers)
    }

    @Test func randomSnapshotsEncodeAsJSONEncoderDoes() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let s = Self.randomSnapshot(&rng)
            for ahead in [0, 30] {
                let ours = AppFrameJSON.encode(s, aheadMS: ahead)
                let reference = try Self.reference(s, aheadMS: ahead)
                #expect(try Self.parsed(ours) == Self.parsed(reference), "\(ours)\n\(reference)")
            }
        }
    }

    @Test func keysComeInJSONEncodersSortedOrder() throws {
        // Readers that scan the bytes (the bench finds `"time":T,"type":"frame"}` at the end) rely on the order.
        let s = SurfaceSnapshot(frame: 7, time: 12.5, tangibles: [
            TangibleSnapshot(id: 1, name: "red", state: .tracked, pose: Pose(position: Vec2(1, 2), angle: 0.5), provenance: .guessed,
                             session: 3, velocity: Vec2(1, 0), field: 1, light: 0, battery: 87),
            TangibleSnapshot(id: 2, name: "blue", state: .inRange),
        ], pointers: [PointerSnapshot(id: 9, position: Vec2(10.25, 20), origin: "evdev:x")])
        #expect(AppFrameJSON.encode(s) == (try Self.reference(s)))
        #expect(AppFrameJSON.encode(s, aheadMS: 30) == (try Self.reference(s, aheadMS: 30)))
    }

    @Test func valuesJSONCannotHoldStillGiveAValidMessage() throws {
        let s = SurfaceSnapshot(frame: 1, time: 2, tangibles: [
            TangibleSnapshot(id: 1, name: "n", state: .tracked, pose: Pose(position: Vec2(.nan, 1), angle: .infinity), velocity: Vec2(-.infinity, 0)),
        ])
        let parsed = try Self.parsed(AppFrameJSON.encode(s, aheadMS: 30))
        #expect(parsed["type"] as? String == "frame")
    }
}
