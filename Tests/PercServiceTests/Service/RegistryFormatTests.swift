// The registry file as a user writes it: the hello spelling, optional keys with defaults, the old
// spelling still read, and errors that name the file, the tangible and the key.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite struct RegistryFormatTests {
    private func withFile(_ text: String, _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-regfmt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tangibles.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try body(path)
    }

    @Test func theHelloSpellingWithOnlyTheNeededKeysLoadsWithDefaults() throws {
        try withFile("""
        {"version": 2, "tangibles": [
          {"id": 1, "name": "red", "address": "c0:ff:ee:00:00:01", "markers": [[-10, -10], [20, -10], [-10, 20]], "light_sensor": [5, 0]},
          {"id": 2, "name": "puck", "markers": [[0, 0], [30, 0], [0, 30]]}]}
        """) { path in
            let r = try RegistryStore(path: path).load()
            let red = try #require(r.definition(1))
            #expect(red.kind == .perc && red.lightWhiteValue == 1 && red.footprint == .circle(radius: 30))
            #expect(red.address == "C0:FF:EE:00:00:01" && red.lightSensorOffset == Vec2(5, 0) && red.profile == nil)
            let puck = try #require(r.definition(2))
            #expect(puck.kind == .puc && puck.lightSensorOffset == nil)
        }
    }

    @Test func theOldSpellingStillLoadsAndIsWrittenBackInTheNewOne() throws {
        try withFile("""
        {"version": 1, "tangibles": [
          {"id": 1, "name": "red", "kind": "perc", "address": "C0:FF:EE:00:00:01", "profile": "perc-v1",
           "markers": [{"x": -10, "y": -10}, {"x": 20, "y": -10}, {"x": -10, "y": 20}],
           "lightSensorOffset": {"x": 5, "y": 0}, "footprint": {"circle": {"radius": 25}}}]}
        """) { path in
            let store = RegistryStore(path: path)
            let old = try store.load()
            let red = try #require(old.definition(1))
            #expect(red.footprint == .circle(radius: 25) && red.lightWhiteValue == 1 && red.profile == .percV1)
            try store.save(old)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("\"light_sensor\"") && text.contains("\"footprint_radius_mm\"") && text.contains("\"version\" : 2"))
            #expect(!text.contains("lightSensorOffset"))
            #expect(try store.load() == old)
        }
    }

    @Test(arguments: [
        (#"{"version": 2, "tangibles": [{"id": 1, "name": "red", "markers": [[0, 0], [30, 0]]}]}"#, #"tangible 1 ("red"): key "markers""#),
        (#"{"version": 2, "tangibles": [{"id": 1, "name": "red", "markers": [[0,0],[30,0],[0,30]], "light_white_value": 7}]}"#, #"key "light_white_value": expected 0 or 1"#),
        (#"{"version": 2, "tangibles": [{"id": 1, "name": "red", "markers": [[0,0],[30,0],[0,30]], "ligth_sensor": [5, 0]}]}"#, #"key "ligth_sensor": unknown"#),
        (#"{"version": 2, "tangibles": [{"name": "red", "markers": [[0,0],[30,0],[0,30]]}]}"#, #"key "id""#),
        (#"{"version": 2, "tangibles": [{"id": 1, "name": "a", "markers": [[0,0],[30,0],[0,30]]}, {"id": 1, "name": "b", "markers": [[0,0],[30,0],[0,30]]}]}"#, #"tangible 2 ("b"): key "id": 1 is used twice"#),
        (#"{"version": 9, "tangibles": []}"#, #"key "version": format 9"#),
        (#"{"version": 2, "tangibles": [{"id": 1, "name": "red", "address": "nope", "markers": [[0,0],[30,0],[0,30]]}]}"#, #"key "address""#),
    ])
    func aBadRegistryNamesFileTangibleAndKey(_ text: String, _ expected: String) throws {
        try withFile(text) { path in
            do {
                _ = try RegistryStore(path: path).load()
                Issue.record("\(text) loaded")
            } catch let e as RegistryStore.LoadError {
                #expect(e.description.contains(path) && e.description.contains(expected), "\(e.description)")
            }
        }
    }

    /// Through the service: a registry without `light_white_value` serves; a broken one stops
    /// `serve` with exit 78 and a line naming the file, the tangible and the key.
    @Test func serveReadsAMinimalRegistryAndRefusesABrokenOne() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-regserve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let registry = dir.appendingPathComponent("tangibles.json").path
        let config = dir.appendingPathComponent("percbridge.toml").path
        try """
        [registry]
        path = "\(registry)"
        [bluetooth]
        enabled = false
        [http]
        enabled = false
        [tuio]
        enabled = false
        [control]
        enabled = false
        """.write(toFile: config, atomically: true, encoding: .utf8)
        try #"{"version": 2, "tangibles": [{"id": 1, "name": "red", "markers": [[0,0],[30,0],[0,30]], "light_white_value": "white"}]}"#
            .write(toFile: registry, atomically: true, encoding: .utf8)
        let bad = try await offPool { try CLI.run(["serve", "--config", config]) }
        #expect(bad.status == 78, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("percbridge: error: tangible registry \(registry)") && bad.stderr.contains(#"tangible 1 ("red"): key "light_white_value""#), "\(bad.stderr)")
    }
}
