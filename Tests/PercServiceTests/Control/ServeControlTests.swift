// The control API of `percbridge serve` with BlueZ links on the emulator: pair, list, status, forget.
import Foundation
import MTKTangibles
import Testing
@testable import PercControl
@testable import PercRuntime
import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct ServeControlTests {
    @Test func servePairsListsAndForgetsThroughTheBlueZEmulator() async throws {
        let bed = try await BlueZTestbed()
        defer { bed.stop() }
        let tmp = try TempDir("pb-serve-control")
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: bed.address),
                                     arguments: ["--control-bus", bed.address])
        let found = await eventually(30) { (try? await bed.session.connection.nameOwner(of: ControlAPI.busName)) != nil }
        try #require(found, "serve did not offer its control API: \(serve.log)")
        let bus = bed.address
        func cli(_ args: [String]) async throws -> CLI.Result { try await offPool { try CLI.run(args + ["--bus", bus]) } }

        #expect(await serve.waitForLog("BlueZ on the bus", seconds: 30), "\(serve.log)")
        let pair = try await cli(["pair", BlueZTestbed.v1, "--name", "PERC one"])
        #expect(pair.status == 0, "\(pair.stderr)\n\(serve.log)")
        #expect(pair.stdout.contains("Paired \(BlueZTestbed.v1) (PERC one, perc-v1) as tangible 1"), "\(pair.stdout)")
        let phone = try await cli(["pair", BlueZTestbed.phone])
        #expect(phone.status == 1)
        #expect(phone.stderr.contains("is not a PERC"), "\(phone.stderr)")

        let connected = await eventually(20) {
            let l = try? await offPool { try CLI.run(["list", "--json", "--bus", bus]) }
            let rows = (l.flatMap { jsonObject($0.stdout) } as? [[String: Any]]) ?? []
            return rows.first { $0["address"] as? String == BlueZTestbed.v1 }?["link"] as? String == "connected"
        }
        #expect(connected, "the paired PERC's link came up: \(serve.log)")
        let status = try await cli(["status"])
        #expect(status.stdout.contains("(serve)"))
        #expect(status.stdout.contains("\(BlueZTestbed.v1)  PERC one"), "\(status.stdout)")
        #expect(status.stdout.contains("NOTIFICATIONS  LOST  LINK-UPS"), "\(status.stdout)")

        // Per-link counters: notifications sent by the PERC arrive in them, gaps count as lost,
        // a link drop counts one more link-up (what scripts/test-real-bluez measures with).
        func link() async -> [String: Any]? {
            let s = try? await cli(["status", "--json"])
            let links = (s.flatMap { jsonObject($0.stdout) } as? [String: Any])?["links"] as? [[String: Any]]
            return links?.first { $0["address"] as? String == BlueZTestbed.v1 }
        }
        let before = try #require(await link())
        #expect(before["link_ups"] as? Int == 1, "\(before)")
        let notifications = before["notifications"] as? Int ?? -1
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 20)
        let streamed = await eventually(10) { (await link()?["notifications"] as? Int ?? 0) >= notifications + 20 }
        var now = await link()
        #expect(streamed, "\(String(describing: now))")
        try await bed.control.dropSequence(BlueZTestbed.v1, 3)
        try await bed.control.sendV1(BlueZTestbed.v1, field: 0, light: 0)
        let counted = await eventually(10) { await link()?["lost"] as? Int == 3 }
        now = await link()
        #expect(counted, "\(String(describing: now))")
        try await bed.control.dropLink(BlueZTestbed.v1)
        let back = await eventually(20) { let l = await link(); return l?["link_ups"] as? Int == 2 && l?["state"] as? String == "connected" }
        now = await link()
        #expect(back, "\(String(describing: now))\n\(serve.log)")

        // No touch input: nothing to define from.
        let define = try await cli(["define", "Puck", "--kind", "puc"])
        #expect(define.status == 1)
        #expect(define.stderr.contains("no three still traces on the surface"))

        let forget = try await cli(["forget", "PERC one"])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try RegistryStore(path: tmp.path("tangibles.json")).load().tangibles.isEmpty)
        let list = try await cli(["list"])
        #expect(list.stdout.contains("No tangibles defined yet"))
        #expect(try await serve.terminate() == 0)
    }

    /// Define through serve: the registry change goes through ServiceLinks and reaches the
    /// engine between two frames, where `--record` notes it, so the run still replays exactly.
    @Test func serveDefinesAPucFromTouchesAndTheRunStillReplays() async throws {
        let tmp = try TempDir("pb-serve-define")
        var touches = EvemuScript(surface: Vec2(800, 500))
        touches.down(at: 0.3, [(0, 1, Vec2(400, 250)), (1, 2, Vec2(445, 250)), (2, 3, Vec2(415, 275))])
        try touches.text.write(toFile: tmp.path("touches.events"), atomically: true, encoding: .utf8)
        let recording = tmp.path("run.jsonl")
        let bus = try PrivateBus()
        defer { bus.stop() }
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: bus.address,
                                                          touches: tmp.path("touches.events")),
                                     arguments: ["--record", recording, "--control-bus", bus.address])
        try await serve.waitForControlAPI(on: bus.address)
        let address = bus.address

        let define = try await offPool { try CLI.run(["define", "Puck", "--kind", "puc", "--json", "--bus", address]) }
        #expect(define.status == 0, "\(define.stderr)\n\(serve.log)")
        let d = jsonObject(define.stdout) as? [String: Any]
        #expect(d?["id"] as? Int == 1)
        #expect((d?["markers"] as? [[Double]])?.count == 3)
        let recognised = await eventually(10) {
            let l = try? await offPool { try CLI.run(["list", "--json", "--bus", address]) }
            let rows = (l.flatMap { jsonObject($0.stdout) } as? [[String: Any]]) ?? []
            guard let puck = rows.first(where: { $0["name"] as? String == "Puck" }), puck["state"] as? String == "recognized",
                  let x = puck["x"] as? Double, let y = puck["y"] as? Double else { return false }
            return Vec2(x, y).distance(to: Vec2(420, 258.33)) < 1
        }
        #expect(recognised, "the new PUC is recognised at its markers' centroid")
        #expect(try await serve.terminate() == 0, "\(serve.log)")

        try await replayMatchesEveryFrame(recording, minFrames: 20)
    }
}
