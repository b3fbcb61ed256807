// The control API of `percbridge serve` with BlueZ links on the emulator: pair, list, status, forget.
import Foundation
import Testing
@testable import PercBridge

@Suite(.serialized) struct ServeControlTests {
    @Test func servePairsListsAndForgetsThroughTheBlueZEmulator() async throws {
        let bed = try await BlueZTestbed()
        defer { bed.stop() }
        let tmp = try TempDir("pb-serve-control")
        let serve = try ServeProcess(dir: tmp.url, config: """
            [surface]
            width_mm = 800
            height_mm = 500
            [tuio]
            enabled = false
            [registry]
            path = "\(tmp.path("tangibles.json"))"
            [bluetooth]
            bus = "\(bed.address)"
            adapter = "any"
            [control]
            bus = "\(bed.address)"
            """)
        let found = await eventually(30) { (try? await bed.session.connection.nameOwner(of: ControlAPI.busName)) != nil }
        try #require(found, "serve did not offer its control API: \(serve.log)")
        let bus = bed.address
        func cli(_ args: [String]) async throws -> CLI.Result { try await offPool { try CLI.run(args + ["--bus", bus]) } }

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
}
