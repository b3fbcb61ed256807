// The pairing walk-through of docs/pairing.md through the real CLI against `percbridge demo`.
import Foundation
import MTKTangibles
import Testing
@testable import PercControl
@testable import PercRuntime
import PercSystem
import PercTestSupport

@Suite(.serialized) struct ControlCLITests {
    /// Scan (status), pair, put it on the surface (the scenario does at 3 s), define,
    /// calibrate, see it tracked, forget.
    @Test func pairingWalkThroughWorksInTheDemo() async throws {
        let demo = try await ControlDemo(scenario: "pairing")
        defer { demo.stop() }
        let address = DemoPairingScenario.newPercAddress

        let status = try await demo.cli(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\(address)  PERC new"), "\(status.stdout)")
        #expect(status.stdout.contains("in range"))

        let early = try await demo.cli(["define", "PERC red", "--address", address])
        #expect(early.status == 1)
        #expect(early.stderr.contains("pair it first: percbridge pair \(address)"), "\(early.stderr)")

        let pair = try await demo.cli(["pair", address])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("Paired \(address) (PERC new, perc-v1) as tangible 2"), "\(pair.stdout)")
        // Registered as a standard PERC until define measures it; its module now reports to it.
        let registered = try await demo.tangible(named: "PERC new")
        #expect(registered?["id"]?.int == 2)
        #expect(registered?["link"]?.string == "connected")

        try await demo.waitUptime(4)
        let define = try await demo.cli(["define", "PERC red", "--address", address, "--json"])
        #expect(define.status == 0, "\(define.stderr)")
        let d = jsonObject(define.stdout) as? [String: Any]
        #expect(d?["kind"] as? String == "perc")
        #expect(d?["id"] as? Int == 2, "define measures the paired tangible, keeping its id")
        let calibration = d?["calibration"] as? [String: Any]
        #expect(calibration?["status"] as? String == "found", "\(define.stdout)")
        // Its sensor's distances to the markers (34.3, 11.8, 28.1 mm) differ by 6 mm or more, so no
        // calibration error (a few mm at most) makes define warn.
        #expect(d?["warnings"] == nil, "\(define.stdout)")
        // The scenario's true offset (14, -4) in its own frame; the definition's frame is the
        // pose it was measured in (placed at 35°), so the offset found is that one turned by 35°.
        let truth = DemoPairingScenario.newPercOffset.vec.rotated(by: 35 * Double.pi / 180)
        let found = (d?["light_sensor_offset"] as? [Double]) ?? []
        #expect(found.count == 2 && Vec2(found[0], found[1]).distance(to: truth) < 3, "found \(found), truth \(truth)")

        // Tracked and confirmed by light checks with the new offset, where the simulator put it.
        var red: [String: DBusValue]?
        for _ in 0..<100 {
            red = try await demo.tangible(named: "PERC red")
            if red?["provenance"]?.string == "confirmed" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(red?["state"]?.string == "tracked", "\(String(describing: red))")
        #expect(red?["provenance"]?.string == "confirmed")
        let x = red?["x"]?.double ?? 0, y = red?["y"]?.double ?? 0
        // (Failed about 1 run in 30 until 2026-11-27, "confirmed" at (504.6, 288.7): define's
        // replaced machine restarted its request ids and its first check carried on with the old
        // definition's evidence; EngineTests.replacedDefinitionAsksAfresh. What define measured
        // and what List said are in the message, should it fail again.)
        #expect(Vec2(x, y).distance(to: Vec2(500, 300)) < 3, "pose (\(x), \(y)); List: \(String(describing: red)); define: \(define.stdout)")
        let list = try await demo.cli(["list"])
        #expect(list.stdout.contains("PERC red       perc  tracked  confirmed"), "\(list.stdout)")
        // The standard PERC's sensor is 18.0 mm from markers 0 and 1: list warns (stderr) and
        // says where the sensor should go; the table stays one row per tangible.
        #expect(list.stderr.contains("warning: tangible 1 (PERC standard): the light sensor is 18.0 mm from marker 0 and 18.0 mm from marker 1 (0.0 mm apart)"), "\(list.stderr)")
        #expect(list.stderr.contains("Put the sensor at ("), "\(list.stderr)")
        #expect(!list.stderr.contains("PERC red"), "\(list.stderr)")
        let listed = jsonObject(try await demo.cli(["list", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect((listed.first { $0["id"] as? Int == 1 }?["warnings"] as? [String])?.count == 1, "\(listed)")
        #expect(listed.first { $0["name"] as? String == "PERC red" }?["warnings"] == nil)

        // The registry file holds the calibrated definition.
        let stored = try RegistryStore(path: demo.registry.path).load().tangibles.first { $0.name == "PERC red" }
        #expect(stored?.address == address)
        #expect(stored?.lightSensorOffset.map { $0.distance(to: truth) < 3 } == true)

        let again = try await demo.cli(["calibrate", "PERC red"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Calibrated tangible"))

        let forget = try await demo.cli(["forget", "PERC red"])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try await demo.tangible(named: "PERC red") == nil)
        let twice = try await demo.cli(["forget", "PERC red"])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("no tangible \"PERC red\""))
    }

    @Test func withoutAServiceEveryCommandSaysHowToStartOne() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        for args in [["list"], ["status"], ["forget", "1"], ["define", "X"], ["calibrate", "1"], ["pair", "C0:FF:EE:00:00:01"]] {
            let r = try await offPool { try CLI.run(args + ["--bus", bus.address]) }
            #expect(r.status == ControlClient.noServiceExitCode, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("no PercBridge service"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("percbridge demo --control-bus"), "\(args): \(r.stderr)")
        }
        let pair = try await offPool { try CLI.run(["pair", "C0:FF:EE:00:00:01", "--bus", bus.address]) }
        #expect(pair.stderr.contains("percbridge pair --direct C0:FF:EE:00:00:01"), "\(pair.stderr)")
        let unreachable = try await offPool { try CLI.run(["status", "--bus", "unix:path=\(bus.directory.path)/none"]) }
        #expect(unreachable.status == ControlClient.noServiceExitCode)
        #expect(unreachable.stderr.contains("cannot reach the bus"))
    }

    @Test func aDemoOnTheSessionBusIsPointedOutWhenTheSystemBusHasNone() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let system = try PrivateBus()
        defer { system.stop() }
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "DBUS_SESSION_BUS_ADDRESS": demo.bus.address]
        let r = try await offPool { try CLI.run(["list"], environment: environment) }
        #expect(r.status == ControlClient.noServiceExitCode)
        #expect(r.stderr.contains("no PercBridge service on the system bus"), "\(r.stderr)")
        #expect(r.stderr.contains("One runs on your session bus (percbridge demo): add --bus session."), "\(r.stderr)")
        let session = try await offPool { try CLI.run(["list", "--bus", "session"], environment: environment) }
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("PERC A"))
    }

    @Test func helpTeachesWithExamples() async throws {
        for (command, example) in [("list", "percbridge list --bus session"), ("status", "percbridge status --bus session --json"),
                                   ("define", "percbridge define \"Puck\" --kind puc"), ("calibrate", "percbridge calibrate 2"),
                                   ("forget", "percbridge forget 2"), ("pair", "percbridge pair --direct")] {
            let r = try await offPool { try CLI.run([command, "--help"]) }
            #expect(r.status == 0)
            #expect(r.stdout.contains(example), "\(command) --help lacks \(example)")
            #expect(r.stdout.contains("--bus"))
        }
        let demo = try await offPool { try CLI.run(["demo", "--help"]) }
        #expect(demo.stdout.contains("--control-bus"))
        #expect(demo.stdout.contains("pairing"))
    }
}
