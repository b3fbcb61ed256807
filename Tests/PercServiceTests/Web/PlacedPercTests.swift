// A PERC put down on one marker whose turn light cannot resolve: `placed` through the WebSocket protocol and the Python client.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct PlacedPercTests {
    /// The standard PERC (sensor 18.0 mm from markers 0 and 1) set down at (400, 300), 0°, with
    /// only marker 0 touching; at 4 s a finger lands where marker 1 is (a second marker touch
    /// for the engine). Apps see it `placed` (the touch and the sensor, no pose), then
    /// `tracked` with its true pose; never a pose before that.
    static let scenario = """
    {"name": "one-touch", "seed": 5, "surface": [800, 500], "background": "black", "duration": 30, "loop": false,
     "hardware": {"flickerRate": 0, "filterDelayMin": 86400, "filterDelayMax": 86400},
     "tangibles": [{"id": 1, "name": "PERC A"}],
     "steps": [{"at": 0.5, "place": {"tangible": 1, "position": [400, 300], "angle": 0, "touches": [0]}},
               {"at": 4.0, "fingerDown": {"finger": 1, "position": [420, 290]}}]}
    """

    @Test(.enabled(if: PythonClientTests.available)) func aOneMarkerPlacementIsShownPlacedThenTracked() async throws {
        let tmp = try TempDir("pb-placed")
        let file = tmp.url.appendingPathComponent("one-touch.json")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let demo = try DemoProcess(["--scenario", file.path])
        defer { demo.stop() }
        let r = try await PythonClientTests.check(["placed", "ws://\(demo.address)/ws", "1", "6"])
        let states = try #require(r["states"] as? [[String: Any]], "\(r)")
        let names = states.compactMap { $0["state"] as? String }
        #expect(names.contains("placed") && names.last == "tracked", "\(names)")
        let placedAt = try #require(names.firstIndex(of: "placed"))
        #expect(!names[..<placedAt].contains("tracked"), "no pose before it was placed: \(names)")
        let placed = states[placedAt]
        #expect(placed["poses_while"] as? Int == 0, "placed: no pose in any frame (\(placed))")
        let last = try #require(placed["last"] as? [String: Any])
        let placement = try #require(last["placement"] as? [String: [Double]], "\(last)")
        // Marker 0 of the standard PERC at (400, 300), 0°: (390, 290); its sensor (405, 300).
        let touch = try #require(placement["touch"]), sensor = try #require(placement["sensor"])
        #expect(hypot(touch[0] - 390, touch[1] - 290) < 3 && hypot(sensor[0] - 405, sensor[1] - 300) < 3, "\(placement)")
        // Tracked once the second touch came (4 s), with its true pose.
        let tracked = try #require(states.last)
        #expect((tracked["time"] as? Double ?? 0) >= 4, "\(tracked)")
        let pose = try #require((tracked["last"] as? [String: Any])?["pose"] as? [Double], "\(tracked)")
        let turn = abs(remainder(pose[2], 2 * Double.pi))
        #expect(hypot(pose[0] - 400, pose[1] - 300) < 3 && turn < 0.1, "\(pose)")
        #expect(((tracked["last"] as? [String: Any])?["placement"]) is NSNull, "tracked: no placement")
    }
}
